#pragma once
// The one renderer of text tables (the search's front, the sweep): a header line, then one line per row. Columns are
// two spaces apart, each as wide as its widest cell (header included); lines carry no trailing spaces.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace shardmeter::cli {

enum class Align : std::uint8_t { left, right };

struct TextColumn {
  std::string header;
  Align align = Align::left;          // numbers are right-aligned
  std::vector<std::string> cells;     // one per row; every column holds the same number
};

// `blank_before`: rows preceded by an empty line (e.g. where a sweep's series changes).
std::string render_table(const std::vector<TextColumn>& columns, std::span<const std::size_t> blank_before = {});
// One line of such a table, for a table printed as its rows come (a streamed sweep): `cells` (one per column) in
// columns of `width` (each column's widest cell, header included, found beforehand), aligned as `columns` say.
std::string render_table_line(const std::vector<TextColumn>& columns, std::span<const std::size_t> width,
                              std::span<const std::string> cells);

}  // namespace shardmeter::cli
