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

// Rows with their column order (the order of the file's columns).
struct Table {
  std::vector<std::string> columns;
  std::vector<Row> rows;
};

// A result file read back.
struct ResultFile {
  RunInfo info;
  Table front;
  bool has_all = false;   // the file holds an /all dataset (read it with read_all)
};

// Typed access; throw ResultsError naming the column when it is missing or of another type.
// number() accepts int64 and double cells.
double number(const Row& row, std::string_view column);
std::int64_t integer(const Row& row, std::string_view column);
const std::string& text(const Row& row, std::string_view column);

// A cell as text: integers in decimal, doubles in the shortest form that reads back exactly, strings as is.
std::string format_cell(const CellValue& value);

}  // namespace shardmeter::results
