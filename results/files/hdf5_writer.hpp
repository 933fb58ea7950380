#pragma once
// Writing a search's result file (layout: results/README.md, names: results/files/hdf5_names.hpp).
//
//   FrontWriter out("front.h5", RowLayout(islands, axes, label_width), {.write_all = true});
//   out.append_all(batch);   // while the search runs, from one thread at a time
//   ...
//   out.finish(info, front); // also after Ctrl-C, with info.complete = false
//
// The file is written as `<out>.tmp.<pid>` next to the target and renamed on finish(); any error (or destroying
// the writer before finish()) removes the temporary file. Every failure throws OutputError naming `<out>`.
// Not thread-safe, and the HDF5 library build is not thread-safe either: serialise all calls.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>

#include "results/front/plan_point.hpp"
#include "results/front/run_info.hpp"
#include "results/files/row_layout.hpp"

namespace shardmeter::results {

struct WriterOptions {
  bool write_all = false;       // create /all and accept append_all()
  std::size_t chunk_rows = 0;   // rows per /all chunk; 0 = about 256 KiB per chunk
  int deflate_level = 0;        // /all is deflated: 0 = deflate_rows (fast, row_deflate.hpp), 1-9 = zlib's level
};

class FrontWriter {
public:
  // Creates the temporary file (and /all when asked). Throws OutputError.
  FrontWriter(std::filesystem::path out, RowLayout layout, WriterOptions options = {});
  ~FrontWriter();
  FrontWriter(const FrontWriter&) = delete;
  FrontWriter& operator=(const FrontWriter&) = delete;

  // Adds feasible candidates to /all (buffered; written a chunk at a time). Row order is the call order:
  // sort by `index` when a deterministic order is needed.
  void append_all(std::span<const PlanPoint> batch);
  // The same for `count` rows that are not PlanPoints yet: fill(i, point) sets every field of row i in `point`
  // (which still holds an earlier row), on several threads at once, each with its own point; the row is packed
  // from it at once. Saves materialising the batch (a PlanPoint is about 6 KB).
  void append_all(std::size_t count, const std::function<void(std::size_t, PlanPoint&)>& fill);
  // Rows packed elsewhere, e.g. on a search's worker threads where the candidates are checked (so that no copy of
  // the scenario and the estimate travels to the writer): pack_row writes a row of row_bytes() bytes at dst from
  // the view, reading only the layout (safe on several threads at once, also while append_packed runs; throws
  // OutputError when the row does not fit the layout); append_packed adds rows so packed (a multiple of
  // row_bytes() bytes), like append_all.
  std::size_t row_bytes() const;
  void pack_row(const RowView& row, std::byte* dst) const;
  void append_packed(std::span<const std::byte> rows);
  std::uint64_t all_rows() const;   // rows appended so far
  // Streams /front instead of taking it whole at finish() (a sweep too large to hold, src/sweep/sweep_stream.hpp):
  // begin_front creates /front with `rows` rows, as finish() would create it for that many points; append_front
  // writes its next rows, packed with pack_row (a multiple of row_bytes() bytes). finish() then takes an empty
  // front and checks that every row was written.
  void begin_front(std::uint64_t rows);
  void append_front(std::span<const std::byte> rows);

  // Writes the remaining /all rows, /front (in the given order: sorted by cost ascending), the root attributes,
  // closes the file and renames it over the target. info.axes must equal the layout's axes.
  void finish(const RunInfo& info, std::span<const PlanPoint> front);

  const std::filesystem::path& path() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// True once a result file could not be closed (a full disk while HDF5 flushed it). HDF5 cannot close such a file
// again without crashing, and its library closes every open file when the process exits: a process for which this
// is true must end with std::_Exit after flushing its streams (src/cli/main.cpp does).
bool hdf5_file_left_open();

// Turns off libhdf5's automatic printing of its error stack (H5Eset_auto2), for the whole process: every libhdf5
// failure is caught and reported as an OutputError or InputError of ours. Call once, early in main().
void silence_hdf5_errors() noexcept;

// One call for a front without /all: the layout is fitted to the points (RowLayout::fit) with info.axes.
void write_front(const std::filesystem::path& out, const RunInfo& info, std::span<const PlanPoint> front);

}  // namespace shardmeter::results
