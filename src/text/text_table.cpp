#include "src/text/text_table.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace shardmeter::cli {

std::string render_table(const std::vector<TextColumn>& columns, std::span<const std::size_t> blank_before) {
  std::vector<std::size_t> width;
  std::size_t rows = 0;
  for (const TextColumn& c : columns) {
    std::size_t w = c.header.size();
    for (const std::string& cell : c.cells) w = std::max(w, cell.size());
    width.push_back(w);
    rows = std::max(rows, c.cells.size());
  }
  std::vector<std::string> cells;
  for (const TextColumn& c : columns) cells.push_back(c.header);
  std::string out = render_table_line(columns, width, cells);
  for (std::size_t r = 0; r < rows; ++r) {
    if (std::find(blank_before.begin(), blank_before.end(), r) != blank_before.end()) out += "\n";
    for (std::size_t c = 0; c < columns.size(); ++c) cells[c] = r < columns[c].cells.size() ? columns[c].cells[r] : "";
    out += render_table_line(columns, width, cells);
  }
  return out;
}

std::string render_table_line(const std::vector<TextColumn>& columns, std::span<const std::size_t> width,
                              std::span<const std::string> cells) {
  std::string text;
  for (std::size_t c = 0; c < columns.size(); ++c) {
    const std::string& cell = cells[c];
    if (c > 0) text += "  ";
    text += columns[c].align == Align::right ? fmt::format("{:>{}}", cell, width[c]) : fmt::format("{:<{}}", cell, width[c]);
  }
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text + "\n";
}

}  // namespace shardmeter::cli
