#pragma once
// Reading ShardMeter HDF5 result files back (reports, --baseline comparisons, export). Returns what the writer
// wrote: the run's provenance and the rows, column name -> value, in file order. Errors are InputError with a
// problem kind (missing, not_hdf5, not_shardmeter, wrong_schema, missing_dataset).
#include <cstddef>
#include <filesystem>
#include <functional>

#include "results/front/row.hpp"

namespace shardmeter::results {

// RunInfo from the root attributes and the /front rows.
ResultFile read_front(const std::filesystem::path& path);

// The /all rows (every feasible candidate). InputError{missing_dataset} when the file has no /all.
Table read_all(const std::filesystem::path& path);

// Streams /all without holding it in memory: `visit` gets the column names once, then each row.
void for_each_all_row(const std::filesystem::path& path, const std::function<void(const Row&)>& visit,
                      std::vector<std::string>* columns = nullptr);

}  // namespace shardmeter::results
