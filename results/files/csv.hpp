#pragma once
// CSV result files (RFC 4180): a header of column names, then one record per row; fields holding a comma, a
// double quote, CR or LF are quoted, quotes doubled; records end with CRLF. Numbers are written in the shortest
// form that reads back to the same double, booleans as true / false. When the table knows its units, a sidecar
// CSV (units_path) lists them: a header `column,unit`, then one record per column. Written atomically (temporary
// files + rename; an error leaves neither file).
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "results/front/row.hpp"

namespace shardmeter::results {

std::string csv_field(std::string_view text);
std::string to_csv(const Table& table);
// The sidecar's name: `front.csv` -> `front.units.csv` (other names get `.units.csv` appended).
std::filesystem::path units_path(const std::filesystem::path& csv);
// Throws OutputError.
void write_csv(const std::filesystem::path& path, const Table& table);

// Text records as read back (no type guessing: "64" stays "64"). Throws InputError{malformed} on an unterminated
// quote or a record whose field count differs from the header's.
struct CsvRecords {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> records;
  std::vector<int> lines;   // 1-based line where each record starts (for error messages)
};
CsvRecords parse_csv(std::string_view text, const std::string& source = "<text>");
CsvRecords read_csv(const std::filesystem::path& path);

}  // namespace shardmeter::results
