#pragma once
// Reading ShardMeter HDF5 result files back (reports, --baseline comparisons, export). Returns what the writer
// wrote: the run's provenance and the rows, column name -> value, in file order. Errors are InputError with a
// problem kind (missing, not_hdf5, not_shardmeter, wrong_schema, missing_dataset).
//
// A result file may come from anywhere, and libhdf5 crashes on some corrupt files (it follows a variable-length
// string's global heap address without checking it, issue 14). So these functions parse the file in a forked child
// process (results/files/isolated_process.hpp) that sends the result back through a pipe, checked frame by frame
// (results/files/result_wire.hpp): a crash, abort or hang while parsing is
// InputError{not_hdf5, "not a readable ShardMeter result file (the reader process crashed (signal 11, ...))"}, and
// the caller has written nothing yet. docs/hardening.md "Reading foreign HDF5 files" says why.
#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "results/files/isolated_process.hpp"
#include "results/front/row.hpp"

namespace shardmeter::results {

// RunInfo from the root attributes and the /front rows.
ResultFile read_front(const std::filesystem::path& path, const IsolationLimits& limits = {});

// The /all rows (every feasible candidate). InputError{missing_dataset} when the file has no /all.
Table read_all(const std::filesystem::path& path, const IsolationLimits& limits = {});

// Streams /all without holding it in memory: `visit` gets the column names once, then each row. The rows arrive
// in blocks as the child reads them; when the child fails half-way, `visit` has seen some rows and the InputError
// follows (callers build their output in memory or in an AtomicFile, which an exception discards).
void for_each_all_row(const std::filesystem::path& path, const std::function<void(const Row&)>& visit,
                      std::vector<std::string>* columns = nullptr, const IsolationLimits& limits = {});

// The parser itself, in this process, with no guard: what the child runs. A corrupt file can crash the process
// here; only the child and the fuzz harness's in-process mode (tests/fuzz/fuzz_front_reader.cpp) call these.
namespace in_process {
ResultFile read_front(const std::filesystem::path& path);
// read_front streamed (what the child runs, so that it holds one block of rows at a time and sends a frame per
// block): `header` gets everything but the rows, before the first row; `visit` each row.
struct FrontHeader {
  RunInfo info;
  std::vector<std::string> columns;
  std::vector<std::string> units;
  bool has_all = false;
};
void for_each_front_row(const std::filesystem::path& path, const std::function<void(const FrontHeader&)>& header,
                        const std::function<void(const Row&)>& visit);
void for_each_all_row(const std::filesystem::path& path, const std::function<void(const Row&)>& visit,
                      std::vector<std::string>* columns = nullptr);
}  // namespace in_process

}  // namespace shardmeter::results
