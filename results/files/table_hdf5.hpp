#pragma once
// Any Table as one compound HDF5 dataset, added to an existing result file (e.g. a sweep's /sweep next to its
// /front). Members follow the table's column order; a column's type is the type of its cells (int64, float64, or
// fixed-length null-padded UTF-8 text as wide as its longest value, like /front's text columns), so h5py + pandas
// read it with `pd.DataFrame(f["/sweep"][:])`.
#include <filesystem>
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

}  // namespace shardmeter::results
