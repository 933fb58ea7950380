#include "src/csv_table.hpp"

#include <fstream>
#include <sstream>

#include "src/scenario_error.hpp"

namespace shardmeter::cli {

const std::string& CsvRow::at(const std::string& column) const {
  const auto it = cells.find(column);
  if (it == cells.end()) throw ScenarioError({"", line, 0}, column, "", "is not a column of the table");
  return it->second;
}

namespace {

// Splits one record starting at `pos`; advances `pos` and `line` past it.
std::vector<std::string> next_record(const std::string& text, std::size_t& pos, int& line, const std::string& path) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  const int start_line = line;
  while (pos < text.size()) {
    const char c = text[pos++];
    if (quoted) {
      if (c == '"') {
        if (pos < text.size() && text[pos] == '"') {
          fields.back() += '"';
          ++pos;
        } else {
          quoted = false;
        }
      } else {
        if (c == '\n') ++line;
        fields.back() += c;
      }
      continue;
    }
    if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else if (c == '\n') {
      ++line;
      break;
    } else if (c != '\r') {
      fields.back() += c;
    }
  }
  if (quoted) throw ScenarioError({path, start_line, 0}, "", "", "has an unterminated quoted field");
  return fields;
}

}  // namespace

CsvTable read_csv(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ScenarioError({path, 0, 0}, "", "", "cannot be opened");
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();

  CsvTable table;
  table.path = path;
  std::size_t pos = 0;
  int line = 1;
  table.columns = next_record(text, pos, line, path);
  while (pos < text.size()) {
    const int row_line = line;
    std::vector<std::string> fields = next_record(text, pos, line, path);
    if (fields.size() == 1 && fields[0].empty()) continue;  // blank line
    if (fields.size() != table.columns.size())
      throw ScenarioError({path, row_line, 0}, "", std::to_string(fields.size()) + " fields",
                          "but the header has " + std::to_string(table.columns.size()) + " columns");
    CsvRow row;
    row.line = row_line;
    for (std::size_t i = 0; i < fields.size(); ++i) row.cells[table.columns[i]] = fields[i];
    table.rows.push_back(std::move(row));
  }
  return table;
}

}  // namespace shardmeter::cli
