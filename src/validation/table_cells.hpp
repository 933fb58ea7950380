#pragma once
// One record of a validation CSV (results::read_csv) read by column name: a missing column or a cell that is not a
// number is a ScenarioError naming the file, line and column.
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "src/scenario/scenario_error.hpp"

namespace shardmeter::cli {

struct TableCells {
  const std::vector<std::string>& header;
  const std::vector<std::string>& cells;
  const std::string& path;
  int line;
  const std::string& at(const std::string& column) const {
    for (std::size_t i = 0; i < header.size() && i < cells.size(); ++i)
      if (header[i] == column) return cells[i];
    throw ScenarioError({path, line, 0}, column, "", "is not a column of the table");
  }
  double number(const std::string& column) const {
    const std::string& text = at(column);
    try {
      std::size_t used = 0;
      const double v = std::stod(text, &used);
      if (used == text.size() && std::isfinite(v)) return v;
    } catch (const std::exception&) {
    }
    throw ScenarioError({path, line, 0}, column, text, "is not a number");
  }
  double number_or(const std::string& column, double fallback) const {
    return at(column).empty() ? fallback : number(column);
  }
  double positive(const std::string& column) const {
    const double v = number(column);
    if (v > 0) return v;
    throw ScenarioError({path, line, 0}, column, at(column), "is not a positive number");
  }
};

}  // namespace shardmeter::cli
