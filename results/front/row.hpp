#pragma once
// A result row as consumers see it (reports, baselines, export): column name -> value. What every reader returns.
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "results/columns.hpp"
#include "results/front/run_info.hpp"

namespace shardmeter::results {

using Row = std::map<std::string, CellValue, std::less<>>;

// Rows with their column order (the order of the file's columns) and units.
struct Table {
  std::vector<std::string> columns;
  std::vector<Row> rows;
  std::vector<std::string> units;   // one per column, in column order; empty when unknown (files before version 3)
};

// A result file read back.
struct ResultFile {
  RunInfo info;
  Table front;
  bool has_all = false;   // the file holds an /all dataset (read it with read_all)
};

// Typed access; throw ResultsError naming the column when it is missing or of another type.
// number() accepts int64, double and boolean cells (true = 1); integer() int64 and boolean cells; flag() boolean
// cells and, for files before schema_version 3, which stored booleans as numbers, any number (non-zero = true).
double number(const Row& row, std::string_view column);
std::int64_t integer(const Row& row, std::string_view column);
bool flag(const Row& row, std::string_view column);
const std::string& text(const Row& row, std::string_view column);

// A cell as text: integers in decimal, doubles in the shortest form that reads back exactly (with ".0" when
// integral: "30.0", "1e+21"), booleans as true / false, strings as is.
std::string format_cell(const CellValue& value);

}  // namespace shardmeter::results
