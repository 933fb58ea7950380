#include "results/files/hdf5_writer.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <zlib.h>

#include "results/files/atomic_file.hpp"
#include "results/errors.hpp"
#include "results/front/objective.hpp"
#include "results/files/hdf5_io.hpp"
#include "results/files/hdf5_names.hpp"
#include "results/files/row_deflate.hpp"

namespace shardmeter::results {

namespace fs = std::filesystem;
namespace n = h5names;

namespace {

constexpr std::size_t kChunkBytes = 256 * 1024;  // below HDF5's default 1 MiB chunk cache
constexpr std::size_t kChunksPerWrite = 16;       // whole chunks per H5Dwrite: fewer calls, less allocator churn
constexpr std::size_t kParallelPackRows = 64;      // fewer rows per append are packed on the calling thread

// One chunk of /all as HDF5's deflate filter stores it (H5Zdeflate.c: a zlib stream of the chunk's bytes), which
// reads it back. Level 0: deflate_rows (row_deflate.hpp), several times faster than zlib on these rows; 1-9:
// zlib's compress2 at that level (smaller files, slower).
std::vector<unsigned char> filtered_chunk(const std::byte* rows, std::size_t row_count, std::size_t row_bytes,
                                          int level) {
  const auto* src = reinterpret_cast<const unsigned char*>(rows);
  if (level == 0) return deflate_rows(src, row_count, row_bytes);
  const std::size_t bytes = row_count * row_bytes;
  uLongf size = compressBound(static_cast<uLong>(bytes));
  std::vector<unsigned char> out(size);
  if (compress2(out.data(), &size, src, static_cast<uLong>(bytes), level) != Z_OK)
    throw std::runtime_error("zlib compress2 failed");
  out.resize(size);
  return out;
}

std::vector<std::string> units_of(const RowLayout& layout) {
  std::vector<std::string> units;
  for (const FileColumn& c : layout.columns()) units.push_back(c.unit);
  return units;
}

void write_run_info(H5::H5File& file, const RunInfo& info) {
  H5::Group root = file.openGroup("/");
  using h5io::write_attribute;
  write_attribute(root, n::kFormatAttr, n::kFormat);
  write_attribute(root, n::kSchemaVersionAttr, n::kSchemaVersion);
  write_attribute(root, n::kScenario, info.scenario_text);
  write_attribute(root, n::kScenarioName, info.scenario_name);
  write_attribute(root, n::kVersion, info.version);
  write_attribute(root, n::kMethod, info.method);
  write_attribute(root, n::kSeed, info.seed);
  write_attribute(root, n::kThreads, info.threads);
  write_attribute(root, n::kRanks, info.ranks);
  write_attribute(root, n::kSpaceSize, info.space_size);
  write_attribute(root, n::kVisited, info.visited);
  if (info.estimated) write_attribute(root, n::kEstimated, *info.estimated);
  write_attribute(root, n::kFeasible, info.feasible);
  write_attribute(root, n::kElapsed, info.elapsed_s);
  write_attribute(root, n::kComplete, info.complete);
  std::vector<std::string> objectives, directions;
  for (const model::Objective& o : info.objectives) {
    objectives.emplace_back(o.name());
    directions.emplace_back(to_string(o.direction));
  }
  write_attribute(root, n::kObjectives, objectives);
  write_attribute(root, n::kObjectiveDirections, directions);
  write_attribute(root, n::kAxes, info.axes);
  write_attribute(root, n::kCreated, info.created);
  if (info.uncalibrated_gpus) write_attribute(root, n::kUncalibratedGpus, *info.uncalibrated_gpus);
  if (info.uncalibrated_gpu_stacks) write_attribute(root, n::kUncalibratedGpuStacks, *info.uncalibrated_gpu_stacks);
  if (!info.stack_source.empty()) write_attribute(root, n::kStackSource, info.stack_source);
  if (info.counts_estimated) write_attribute(root, n::kCountsEstimated, true);
  for (const auto& [reason, count] : info.rejected)
    write_attribute(root, std::string(n::kRejectedPrefix) + reason, count);
}

}  // namespace

struct FrontWriter::Impl {
  AtomicFile target;
  RowLayout layout;
  WriterOptions options;
  h5io::RowType type;
  h5io::Owned<H5::H5File> file;
  h5io::Owned<H5::DataSet> all;
  h5io::Owned<H5::DataSet> front;  // begin_front(): /front, written by append_front()
  std::uint64_t front_size = 0;    // its rows
  std::uint64_t front_rows = 0;    // rows of /front written so far
  std::vector<std::byte> buffer;   // packed /all rows not yet written
  std::size_t buffered = 0;
  std::size_t chunk_rows = 1;
  std::size_t buffer_rows = 1;     // rows per write: a multiple of chunk_rows
  std::uint64_t all_rows = 0;      // rows written + buffered
  bool finished = false;
  bool failed = false;

  Impl(fs::path out, RowLayout l, WriterOptions o)
      : target(std::move(out), AtomicFile::Target::regular), layout(std::move(l)), options(o), type(h5io::row_type(layout)) {}

  std::string out() const { return target.target().string(); }

  void open() {
    H5::Exception::dontPrint();  // errors become OutputError messages, not HDF5 stack dumps on stderr
    file.emplace(target.open_path(), H5F_ACC_TRUNC);
    if (!options.write_all) return;
    if (!H5Zfilter_avail(H5Z_FILTER_DEFLATE)) throw OutputError(out(), "this HDF5 library has no deflate filter");
    chunk_rows = options.chunk_rows > 0 ? options.chunk_rows : std::max<std::size_t>(16, kChunkBytes / type.row_bytes);
    const hsize_t zero = 0, unlimited = H5S_UNLIMITED, chunk = chunk_rows;
    H5::DSetCreatPropList props;
    props.setChunk(1, &chunk);
    // Deflate only: shuffling made these rows larger, not smaller (their repeats are whole runs of bytes at the same
    // offsets of neighbouring rows, which byte planes split up), and cost a pass over every byte. HDF5 filters
    // only the last, partial chunk itself, at zlib's level (1 for the default level 0).
    props.setDeflate(std::clamp(options.deflate_level, 1, 9));
    all.emplace(file->createDataSet(std::string(n::kAll), type.file, H5::DataSpace(1, &zero, &unlimited), props));
    h5io::write_attribute(*all, n::kUnits, units_of(layout));
    buffer_rows = chunk_rows * kChunksPerWrite;
    buffer.resize(buffer_rows * type.row_bytes);
  }

  void flush() {
    if (buffered == 0) return;
    const hsize_t extent = all_rows;
    all->extend(&extent);
    std::uint64_t start = all_rows - buffered;
    // Whole chunks (all of every flush but the last): filtered on all threads and written as stored, instead of
    // letting HDF5 deflate them one after another on this thread (which bounded `search --all`). The memory row
    // type is the file's at the same offsets, and native is little-endian here, so the bytes are the file's.
    const std::size_t chunks = std::endian::native == std::endian::little ? buffered / chunk_rows : 0;
    if (chunks > 0) {
      std::vector<std::vector<unsigned char>> stored(chunks);
      const int level = std::clamp(options.deflate_level, 0, 9);
      tbb::parallel_for(std::size_t{0}, chunks, [&](std::size_t c) {
        stored[c] = filtered_chunk(buffer.data() + c * chunk_rows * type.row_bytes, chunk_rows, type.row_bytes, level);
      });
      for (std::size_t c = 0; c < chunks; ++c) {
        const hsize_t offset = start + c * chunk_rows;
        if (H5Dwrite_chunk(all->getId(), H5P_DEFAULT, 0, &offset, stored[c].size(), stored[c].data()) < 0)
          throw OutputError(out(), h5io::failure_text("writing the file"));   // the system's reason (a full disk)
      }
      start += chunks * chunk_rows;
    }
    // The last, partial chunk (at finish()): through HDF5's own deflate filter.
    const std::size_t rest = buffered - chunks * chunk_rows;
    if (rest > 0) {
      const hsize_t first = start, count = rest;
      H5::DataSpace space = all->getSpace();
      space.selectHyperslab(H5S_SELECT_SET, &count, &first);
      const H5::DataSpace memory(1, &count);
      all->write(buffer.data() + chunks * chunk_rows * type.row_bytes, type.memory, memory, space);
    }
    buffered = 0;
  }

  // Packs `count` rows on all threads straight into the buffer, up to its end (pack() only reads the layout); a full
  // buffer is flushed and packing goes on. pack_rows(begin, end, dst) packs rows [begin, end) at dst.
  template <class PackRows>
  void append(std::size_t count, PackRows&& pack_rows, bool parallel = true) {
    if (!all) throw OutputError(out(), "append_all() needs WriterOptions::write_all");
    std::size_t done = 0;
    while (done < count) {
      const std::size_t n = std::min(count - done, buffer_rows - buffered);
      std::byte* dst = buffer.data() + buffered * type.row_bytes;
      // A search hands over a few rows per call (one feasible row per thousand candidates on a large space): those
      // are packed here, since a parallel_for of them costs more in TBB's scheduling and idle spinning than packing.
      if (!parallel || n < kParallelPackRows) {
        pack_rows(done, done + n, dst);
      } else {
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n), [&](const tbb::blocked_range<std::size_t>& r) {
          pack_rows(done + r.begin(), done + r.end(), dst + r.begin() * type.row_bytes);
        });
      }
      buffered += n;
      all_rows += n;
      done += n;
      if (buffered == buffer_rows) flush();
    }
  }

  void write_front(const RunInfo& info, std::span<const PlanPoint> given) {
    if (info.axes != layout.axes())
      throw OutputError(out(), fmt::format("the run has {} axes, the file layout {}", info.axes.size(), layout.axes().size()));
    if (all) flush();
    if (front) {   // streamed by append_front()
      if (!given.empty() || front_rows != front_size)
        throw OutputError(out(), fmt::format("/front has {} of its {} rows", front_rows, front_size));
      h5io::write_attribute(*front, n::kUnits, units_of(layout));
      front.close();
      write_run_info(*file, info);
      return;
    }
    std::vector<std::byte> rows(std::max<std::size_t>(given.size(), 1) * type.row_bytes);
    for (std::size_t i = 0; i < given.size(); ++i) h5io::pack(layout, type, given[i], rows.data() + i * type.row_bytes);
    const hsize_t count = given.size();
    h5io::Owned<H5::DataSet> dataset;
    dataset.emplace(file->createDataSet(std::string(n::kFront), type.file, H5::DataSpace(1, &count)));
    if (count > 0) dataset->write(rows.data(), type.memory);
    h5io::write_attribute(*dataset, n::kUnits, units_of(layout));
    dataset.close();
    write_run_info(*file, info);
  }

  // Closes /all, then the file (each at most once: h5io::Owned).
  void close() {
    front.close();
    all.close();
    file.close();
  }

  void discard() noexcept {
    silence_hdf5_errors();   // the thread closing the file may not be the one that wrote it
    failed = true;
    try {
      close();
    } catch (...) {  // the file is going away; a failing close must not hide the original error
    }
    target.discard();
  }

  // Runs `f`; on any error removes the temporary file and throws OutputError naming the target.
  template <class F>
  void guarded(F&& f) {
    if (finished) throw OutputError(out(), "the result file was already written");
    if (failed) throw OutputError(out(), "an earlier error abandoned this result file");
    // libhdf5 is built thread-safe here: its automatic error printing is a per-thread setting, and the --all sink
    // may run on any worker thread. Off on this one too (issue 33: a 124-line dump on a full disk).
    silence_hdf5_errors();
    errno = 0;  // failure_text() reports the system's reason when HDF5 leaves one
    try {
      f();
    } catch (const OutputError&) {
      discard();
      throw;
    } catch (const H5::Exception&) {
      const std::string why = h5io::failure_text("writing the file");  // before discard() changes errno
      discard();
      throw OutputError(out(), why);
    } catch (const std::exception& e) {
      discard();
      throw OutputError(out(), e.what());
    }
  }
};

FrontWriter::FrontWriter(fs::path out, RowLayout layout, WriterOptions options) {
  const std::string name = out.string();
  try {
    impl_ = std::make_unique<Impl>(std::move(out), std::move(layout), options);
  } catch (const OutputError&) {
    throw;
  } catch (const H5::Exception&) {
    throw OutputError(name, h5io::failure_text("creating the file"));
  }
  impl_->guarded([&] { impl_->open(); });
}

FrontWriter::~FrontWriter() {
  if (impl_ && !impl_->finished) impl_->discard();
}

void FrontWriter::append_all(std::span<const PlanPoint> batch) {
  Impl& w = *impl_;
  w.guarded([&] {
    w.append(batch.size(), [&](std::size_t begin, std::size_t end, std::byte* dst) {
      for (std::size_t i = begin; i < end; ++i, dst += w.type.row_bytes) h5io::pack(w.layout, w.type, batch[i], dst);
    });
  });
}

void FrontWriter::append_all(std::size_t count, const std::function<void(std::size_t, PlanPoint&)>& fill) {
  Impl& w = *impl_;
  w.guarded([&] {
    w.append(count, [&](std::size_t begin, std::size_t end, std::byte* dst) {
      PlanPoint point;   // one per range of rows: each thread fills its own
      for (std::size_t i = begin; i < end; ++i, dst += w.type.row_bytes) {
        fill(i, point);
        h5io::pack(w.layout, w.type, point, dst);
      }
    });
  });
}

std::size_t FrontWriter::row_bytes() const { return impl_->type.row_bytes; }

void FrontWriter::pack_row(const RowView& row, std::byte* dst) const {
  try {
    h5io::pack(impl_->layout, impl_->type, row, dst);
  } catch (const ResultsError& e) {
    throw OutputError(impl_->out(), e.what());   // as append_all reports it; the writer's owner discards the file
  }
}

void FrontWriter::append_packed(std::span<const std::byte> rows) {
  Impl& w = *impl_;
  w.guarded([&] {
    if (rows.size() % w.type.row_bytes != 0)
      throw OutputError(w.out(), fmt::format("{} bytes are not whole rows of {}", rows.size(), w.type.row_bytes));
    w.append(rows.size() / w.type.row_bytes, [&](std::size_t begin, std::size_t end, std::byte* dst) {
      std::memcpy(dst, rows.data() + begin * w.type.row_bytes, (end - begin) * w.type.row_bytes);
    }, /*parallel=*/false);
  });
}

void FrontWriter::begin_front(std::uint64_t rows) {
  Impl& w = *impl_;
  w.guarded([&] {
    if (w.front) throw OutputError(w.out(), "/front was already begun");
    const hsize_t count = rows;   // contiguous, as write_front() creates it
    w.front.emplace(w.file->createDataSet(std::string(n::kFront), w.type.file, H5::DataSpace(1, &count)));
    w.front_size = rows;
  });
}

void FrontWriter::append_front(std::span<const std::byte> rows) {
  Impl& w = *impl_;
  w.guarded([&] {
    if (!w.front) throw OutputError(w.out(), "append_front() needs begin_front()");
    const hsize_t count = rows.size() / w.type.row_bytes, first = w.front_rows;
    if (rows.size() % w.type.row_bytes != 0 || first + count > w.front_size)
      throw OutputError(w.out(), fmt::format("{} bytes are not whole rows of {} within /front's {} rows", rows.size(),
                                             w.type.row_bytes, w.front_size));
    if (count == 0) return;
    H5::DataSpace space = w.front->getSpace();
    space.selectHyperslab(H5S_SELECT_SET, &count, &first);
    w.front->write(rows.data(), w.type.memory, H5::DataSpace(1, &count), space);
    w.front_rows += count;
  });
}

std::uint64_t FrontWriter::all_rows() const { return impl_->all_rows; }

void FrontWriter::finish(const RunInfo& info, std::span<const PlanPoint> front) {
  impl_->guarded([&] {
    impl_->write_front(info, front);
    impl_->close();
    impl_->target.commit();
  });
  impl_->finished = true;
}

const fs::path& FrontWriter::path() const { return impl_->target.target(); }

bool hdf5_file_left_open() { return !h5io::kept_open().empty(); }

void silence_hdf5_errors() noexcept {
  // The process-wide default error stack: no automatic printing, on any thread (issue 33: a full disk during an
  // --all write printed a 124-line libhdf5 dump; its errors are our OutputError / InputError messages).
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

void write_front(const fs::path& out, const RunInfo& info, std::span<const PlanPoint> front) {
  FrontWriter writer(out, RowLayout::fit(front, info.axes));
  writer.finish(info, front);
}

}  // namespace shardmeter::results
