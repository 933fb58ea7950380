#pragma once
// JSON result files: {"format", "schema_version", "run": {...provenance...}, "columns": [...], "units": {...},
// "front": [{...}]}. Keys of `run` are the HDF5 root attribute names; `units` maps each column to its unit; each
// front object maps column names to values (integers, numbers, booleans, strings; a non-finite number is written as
// null and read back as NaN). Written atomically.
#include <filesystem>
#include <string>

#include "results/front/row.hpp"

namespace shardmeter::results {

std::string to_json_text(const RunInfo& info, const Table& front);
// Throws OutputError.
void write_json(const std::filesystem::path& path, const RunInfo& info, const Table& front);
// Throws InputError (missing, malformed, wrong_schema).
ResultFile read_json(const std::filesystem::path& path);

}  // namespace shardmeter::results
