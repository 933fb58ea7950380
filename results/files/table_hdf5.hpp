#pragma once
// Any Table as one compound HDF5 dataset, added to an existing result file (e.g. a sweep's /sweep next to its
// /front). Members follow the table's column order; a column's type is the type of its cells (int64, float64, or
// fixed-length null-padded UTF-8 text as wide as its longest value, like /front's text columns), so h5py + pandas
// read it with `pd.DataFrame(f["/sweep"][:])`.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "results/front/row.hpp"

namespace shardmeter::results {

struct TableAttributes {
  std::vector<std::pair<std::string, std::string>> text;                 // root attributes, variable-length UTF-8
  std::vector<std::pair<std::string, double>> numbers;                   // root attributes, float64
  std::vector<std::pair<std::string, std::vector<std::string>>> lists;   // root attributes, arrays of text
};

// Opens `file` read-write, creates dataset `name` (which must not exist) holding `table` with a `units` attribute
// (one per column, "" when unitless; may be empty = no units), writes `root` as root attributes, and closes it.
// Every row must hold every column with the column's type. Throws OutputError naming `file`; on error the file
// may hold a partial dataset, so callers write to a temporary file (results/files/atomic_file.hpp) and rename it.
void add_table_dataset(const std::filesystem::path& file, std::string_view name, const Table& table,
                       const std::vector<std::string>& units, const TableAttributes& root = {});

// The same a row at a time, for a table too large to hold (a streamed sweep's /sweep, src/sweep/sweep_stream.hpp):
// the members (each column's cell type and text width), which add_table_dataset derives from every row, are given
// up front, and exactly `rows` rows are appended before finish(). add_table_dataset writes through it, so a table
// written either way with the same members and rows is the same dataset.
enum class CellKind { int64, float64, text, boolean };
CellKind cell_kind(const CellValue& value);
struct TableMember {
  std::string name;
  CellKind kind = CellKind::float64;
  std::size_t text_width = 1;   // text: bytes of the fixed-length string (at least 1)
};
// Widens the text members to hold `cells` (one per member, in member order).
void widen_text_members(std::vector<TableMember>& members, std::span<const CellValue> cells);

class TableDatasetWriter {
public:
  // Opens `file` read-write and creates dataset `name` of `rows` rows. Throws OutputError naming `file`.
  TableDatasetWriter(std::filesystem::path file, std::string_view name, std::vector<TableMember> members,
                     std::vector<std::string> units, std::uint64_t rows);
  ~TableDatasetWriter();
  TableDatasetWriter(const TableDatasetWriter&) = delete;
  TableDatasetWriter& operator=(const TableDatasetWriter&) = delete;
  // The next row: one cell per member, of its kind (text no wider than its member). Buffered.
  void append(std::span<const CellValue> cells);
  // Writes the remaining rows, the units and `root`, and closes the file (every row must have been appended).
  void finish(const TableAttributes& root = {});

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace shardmeter::results
