#include "results/files/csv.hpp"

#include <algorithm>
#include <fstream>
#include <optional>
#include <sstream>
#include <system_error>

#include <fmt/format.h>

#include "results/files/atomic_file.hpp"
#include "results/errors.hpp"

namespace shardmeter::results {

std::string csv_field(std::string_view text) {
  // One pass over the text (find_first_of would call memchr once per character: 15 % of a streamed sweep).
  if (std::none_of(text.begin(), text.end(), [](char c) { return c == ',' || c == '"' || c == '\r' || c == '\n'; }))
    return std::string(text);
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

std::string csv_text_field(std::string_view text) {
  // A spreadsheet reads a cell starting with = + - @ (or tab, CR) as a formula: `=cmd|'/C calc'!A0` runs a
  // program. A leading apostrophe makes it text, as OWASP's CSV-injection advice says; numbers are never text
  // cells, so negative numbers stay numbers.
  if (!text.empty() && std::string_view("=+-@\t\r").find(text.front()) != std::string_view::npos)
  {
    std::string quoted(1, '\'');
    quoted.append(text);
    return csv_field(quoted);
  }
  return csv_field(text);
}

std::string csv_cell(const CellValue& value) {
  if (const std::string* text = std::get_if<std::string>(&value)) return csv_text_field(*text);
  return csv_field(format_cell(value));
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
      if (it == row.end())
        fields.emplace_back();
      else
        fields.push_back(csv_cell(it->second));
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

namespace {
constexpr std::size_t kCsvStreamBuffer = 1 << 20;

Table units_table(const std::vector<std::string>& columns, const std::vector<std::string>& units) {
  Table out{{"column", "unit"}, {}, {}};
  for (std::size_t i = 0; i < columns.size() && i < units.size(); ++i)
    out.rows.push_back(Row{{"column", CellValue{columns[i]}}, {"unit", CellValue{units[i]}}});
  return out;
}
}  // namespace

void write_csv(const std::filesystem::path& path, const Table& table) {
  if (table.units.empty()) {
    write_text_atomically(path, to_csv(table));
    return;
  }
  const Table units = units_table(table.columns, table.units);
  AtomicFile data(path), sidecar(units_path(path));
  write_text_to(data, to_csv(table));
  write_text_to(sidecar, to_csv(units));
  data.commit();
  sidecar.commit();
}

struct CsvStream::Files {
  explicit Files(const std::filesystem::path& path) : data(path) {}
  AtomicFile data;
  std::optional<AtomicFile> sidecar;
};

CsvStream::CsvStream(const std::filesystem::path& path, std::vector<std::string> columns,
                     std::vector<std::string> units)
    : files_(std::make_unique<Files>(path)), columns_(columns.size()) {
  if (!units.empty()) {
    files_->sidecar.emplace(units_path(path));
    write_text_to(*files_->sidecar, to_csv(units_table(columns, units)));
  }
  write_text_to(files_->data, to_csv(Table{std::move(columns), {}, {}}));
}

CsvStream::~CsvStream() = default;

void CsvStream::append(std::span<const CellValue> cells) {
  for (std::size_t i = 0; i < columns_; ++i) {
    if (i > 0) buffer_ += ',';
    if (i < cells.size()) buffer_ += csv_cell(cells[i]);
  }
  buffer_ += "\r\n";
  if (buffer_.size() >= kCsvStreamBuffer) {
    files_->data.write(buffer_);
    buffer_.clear();
  }
}

void CsvStream::commit() {
  files_->data.write(buffer_);
  buffer_.clear();
  files_->data.commit();
  if (files_->sidecar) files_->sidecar->commit();
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
  constexpr std::uintmax_t kMaxBytes = 16u << 20;  // the shipped tables are a few kB
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(path.string(), InputProblem::malformed, "is a directory");
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > kMaxBytes)
    throw InputError(path.string(), InputProblem::malformed,
                     fmt::format("is too large: {} bytes (at most {} are read)", size, kMaxBytes));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path.string(), InputProblem::missing, "cannot open");
  std::ostringstream text;
  text << in.rdbuf();
  if (text.str().empty()) throw InputError(path.string(), InputProblem::malformed, "is empty: a CSV file starts with a header line");
  return parse_csv(text.str(), path.string());
}

}  // namespace shardmeter::results
