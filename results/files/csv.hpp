#pragma once
// CSV result files (RFC 4180): a header of column names, then one record per row; fields holding a comma, a
// double quote, CR or LF are quoted, quotes doubled; records end with CRLF. Numbers are written in the shortest
// form that reads back to the same double, booleans as true / false; text cells that a spreadsheet would run as a
// formula are neutralised (csv_text_field). When the table knows its units, a sidecar CSV (units_path) lists them:
// a header `column,unit`, then one record per column. Written atomically (temporary files + rename; an error leaves
// neither file).
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "results/front/row.hpp"

namespace shardmeter::results {

std::string csv_field(std::string_view text);
// A text cell: csv_field() after neutralising a formula (a leading = + - @ tab or CR gets an apostrophe before it).
std::string csv_text_field(std::string_view text);
// One cell as a field: text through csv_text_field, anything else through format_cell.
std::string csv_cell(const CellValue& value);
std::string to_csv(const Table& table);
// The sidecar's name: `front.csv` -> `front.units.csv` (other names get `.units.csv` appended).
std::filesystem::path units_path(const std::filesystem::path& csv);
// Throws OutputError.
void write_csv(const std::filesystem::path& path, const Table& table);

// A CSV file written record by record, for a table too large to hold (a streamed sweep): the same bytes as
// write_csv of the whole table, with the same temporary files; nothing is left behind unless commit() succeeds.
// Records are buffered and written about 1 MiB at a time. Throws OutputError.
class CsvStream {
public:
  CsvStream(const std::filesystem::path& path, std::vector<std::string> columns, std::vector<std::string> units);
  ~CsvStream();
  CsvStream(const CsvStream&) = delete;
  CsvStream& operator=(const CsvStream&) = delete;
  // One record: a cell per column, in column order.
  void append(std::span<const CellValue> cells);
  void commit();

private:
  struct Files;
  std::unique_ptr<Files> files_;
  std::size_t columns_ = 0;
  std::string buffer_;
};

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
