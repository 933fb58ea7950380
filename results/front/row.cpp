#include "results/front/row.hpp"

#include <cmath>

#include <fmt/format.h>

#include "results/errors.hpp"

namespace shardmeter::results {

namespace {
const CellValue& cell(const Row& row, std::string_view column) {
  const auto it = row.find(column);
  if (it == row.end()) throw ResultsError(fmt::format("no column `{}` in the row", column));
  return it->second;
}
}  // namespace

double number(const Row& row, std::string_view column) {
  const CellValue& v = cell(row, column);
  if (const double* d = std::get_if<double>(&v)) return *d;
  if (const std::int64_t* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
  if (const bool* b = std::get_if<bool>(&v)) return *b ? 1.0 : 0.0;
  throw ResultsError(fmt::format("column `{}` holds text, not a number", column));
}

std::int64_t integer(const Row& row, std::string_view column) {
  const CellValue& v = cell(row, column);
  if (const std::int64_t* i = std::get_if<std::int64_t>(&v)) return *i;
  if (const bool* b = std::get_if<bool>(&v)) return *b ? 1 : 0;
  throw ResultsError(fmt::format("column `{}` does not hold an integer", column));
}

bool flag(const Row& row, std::string_view column) {
  const CellValue& v = cell(row, column);
  if (const bool* b = std::get_if<bool>(&v)) return *b;
  if (std::holds_alternative<std::string>(v))
    throw ResultsError(fmt::format("column `{}` holds text, not true/false", column));
  return number(row, column) != 0;
}

const std::string& text(const Row& row, std::string_view column) {
  const CellValue& v = cell(row, column);
  if (const std::string* s = std::get_if<std::string>(&v)) return *s;
  throw ResultsError(fmt::format("column `{}` does not hold text", column));
}

std::string format_cell(const CellValue& value) {
  // fmt's default floating-point format is the shortest representation that round-trips (Ryu-like); a double with
  // an integral value keeps a ".0", so CSV readers (pandas) see a float column, not an integer one.
  if (const double* d = std::get_if<double>(&value)) {
    std::string s = fmt::format("{}", *d);
    if (std::isfinite(*d) && s.find_first_of(".e") == std::string::npos) s += ".0";
    return s;
  }
  return std::visit([](const auto& v) { return fmt::format("{}", v); }, value);
}

}  // namespace shardmeter::results
