#pragma once
// A small RFC 4180 CSV reader for the shipped data tables (quoted fields, embedded commas, quotes and newlines).
#include <map>
#include <string>
#include <vector>

namespace shardmeter::cli {

struct CsvRow {
  int line = 0;                                  // 1-based line where the row starts
  std::map<std::string, std::string> cells;      // column name -> text
  const std::string& at(const std::string& column) const;   // throws ScenarioError naming the column if missing
};

struct CsvTable {
  std::string path;
  std::vector<std::string> columns;
  std::vector<CsvRow> rows;
};

// Throws ScenarioError (file, line, column) for a missing file, an unterminated quote or a row whose field count
// differs from the header's.
CsvTable read_csv(const std::string& path);

}  // namespace shardmeter::cli
