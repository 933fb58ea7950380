#include "results/files/csv.hpp"

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "results/files/atomic_file.hpp"
#include "results/errors.hpp"

namespace shardmeter::results {

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

std::string to_csv(const Table& table) {
  std::string out;
  const auto record = [&](const auto& fields) {
    for (std::size_t i = 0; i < fields.size(); ++i) {
      if (i > 0) out += ',';
      out += fields[i];
    }
    out += "\r\n";
  };
  std::vector<std::string> fields;
  for (const std::string& c : table.columns) fields.push_back(csv_field(c));
  record(fields);
  for (const Row& row : table.rows) {
    fields.clear();
    for (const std::string& c : table.columns) {
      const auto it = row.find(c);
      fields.push_back(it == row.end() ? std::string() : csv_field(format_cell(it->second)));
    }
    record(fields);
  }
  return out;
}

std::filesystem::path units_path(const std::filesystem::path& csv) {
  std::filesystem::path out = csv;
  if (csv.extension() == ".csv") out.replace_extension();
  out += ".units.csv";
  return out;
}

void write_csv(const std::filesystem::path& path, const Table& table) {
  if (table.units.empty()) {
    write_text_atomically(path, to_csv(table));
    return;
  }
  Table units{{"column", "unit"}, {}, {}};
  for (std::size_t i = 0; i < table.columns.size() && i < table.units.size(); ++i)
    units.rows.push_back(Row{{"column", CellValue{table.columns[i]}}, {"unit", CellValue{table.units[i]}}});
  AtomicFile data(path), sidecar(units_path(path));
  write_text_to(data, to_csv(table));
  write_text_to(sidecar, to_csv(units));
  data.commit();
  sidecar.commit();
}

CsvRecords parse_csv(std::string_view text, const std::string& source) {
  std::vector<std::vector<std::string>> records;
  std::vector<int> starts;
  std::vector<std::string> record;
  std::string field;
  bool quoted = false, field_started = false;
  std::size_t line = 1, record_line = 1;
  const auto end_field = [&] {
    record.push_back(std::move(field));
    field.clear();
    field_started = false;
  };
  const auto end_record = [&] {
    end_field();
    records.push_back(std::move(record));
    starts.push_back(static_cast<int>(record_line));
    record.clear();
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        if (c == '\n') ++line;
        field += c;
      }
      continue;
    }
    if (c == '"' && !field_started) {
      quoted = field_started = true;
    } else if (c == ',') {
      end_field();
    } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      continue;  // CRLF: the LF ends the record
    } else if (c == '\n') {
      end_record();
      ++line;
      record_line = line;
    } else {
      field += c;
      field_started = true;
    }
  }
  if (quoted) throw InputError(source, InputProblem::malformed, fmt::format("line {}: unterminated quoted field", line));
  if (!record.empty() || !field.empty() || field_started) end_record();
  CsvRecords out;
  if (records.empty()) return out;
  out.header = std::move(records.front());
  for (std::size_t r = 1; r < records.size(); ++r) {
    if (records[r].size() == 1 && records[r][0].empty()) continue;  // blank line
    if (records[r].size() != out.header.size())
      throw InputError(source, InputProblem::malformed,
                       fmt::format("line {}: record {} has {} fields, the header {}", starts[r], r, records[r].size(),
                                   out.header.size()));
    out.records.push_back(std::move(records[r]));
    out.lines.push_back(starts[r]);
  }
  return out;
}

CsvRecords read_csv(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path.string(), InputProblem::missing, "cannot open");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_csv(text.str(), path.string());
}

}  // namespace shardmeter::results
