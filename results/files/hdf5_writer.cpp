#include "results/files/hdf5_writer.hpp"

#include <algorithm>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "results/files/atomic_file.hpp"
#include "results/errors.hpp"
#include "results/front/objective.hpp"
#include "results/files/hdf5_io.hpp"
#include "results/files/hdf5_names.hpp"

namespace shardmeter::results {

namespace fs = std::filesystem;
namespace n = h5names;

namespace {

constexpr std::size_t kChunkBytes = 256 * 1024;  // below HDF5's default 1 MiB chunk cache
constexpr std::size_t kChunksPerWrite = 16;       // whole chunks per H5Dwrite: fewer calls, less allocator churn

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
  for (const auto& [reason, count] : info.rejected)
    write_attribute(root, std::string(n::kRejectedPrefix) + reason, count);
}

}  // namespace

struct FrontWriter::Impl {
  AtomicFile target;
  RowLayout layout;
  WriterOptions options;
  h5io::RowType type;
  std::optional<H5::H5File> file;
  std::optional<H5::DataSet> all;
  std::vector<std::byte> buffer;   // packed /all rows not yet written
  std::size_t buffered = 0;
  std::size_t chunk_rows = 1;
  std::size_t buffer_rows = 1;     // rows per write: a multiple of chunk_rows
  std::uint64_t all_rows = 0;      // rows written + buffered
  bool finished = false;
  bool failed = false;

  Impl(fs::path out, RowLayout l, WriterOptions o)
      : target(std::move(out)), layout(std::move(l)), options(o), type(h5io::row_type(layout)) {}

  std::string out() const { return target.target().string(); }

  void open() {
    H5::Exception::dontPrint();  // errors become OutputError messages, not HDF5 stack dumps on stderr
    file.emplace(target.temp().string(), H5F_ACC_TRUNC);
    if (!options.write_all) return;
    if (!H5Zfilter_avail(H5Z_FILTER_DEFLATE)) throw OutputError(out(), "this HDF5 library has no deflate filter");
    chunk_rows = options.chunk_rows > 0 ? options.chunk_rows : std::max<std::size_t>(16, kChunkBytes / type.row_bytes);
    const hsize_t zero = 0, unlimited = H5S_UNLIMITED, chunk = chunk_rows;
    H5::DSetCreatPropList props;
    props.setChunk(1, &chunk);
    props.setShuffle();
    props.setDeflate(std::clamp(options.deflate_level, 1, 9));
    all.emplace(file->createDataSet(std::string(n::kAll), type.file, H5::DataSpace(1, &zero, &unlimited), props));
    h5io::write_attribute(*all, n::kUnits, units_of(layout));
    buffer_rows = chunk_rows * kChunksPerWrite;
    buffer.resize(buffer_rows * type.row_bytes);
  }

  void flush() {
    if (buffered == 0) return;
    const hsize_t start = all_rows - buffered, count = buffered, extent = all_rows;
    all->extend(&extent);
    H5::DataSpace space = all->getSpace();
    space.selectHyperslab(H5S_SELECT_SET, &count, &start);
    const H5::DataSpace memory(1, &count);
    all->write(buffer.data(), type.memory, memory, space);
    buffered = 0;
  }

  void append(std::span<const PlanPoint> batch) {
    if (!all) throw OutputError(out(), "append_all() needs WriterOptions::write_all");
    for (const PlanPoint& p : batch) {
      h5io::pack(layout, type, p, buffer.data() + buffered * type.row_bytes);
      ++buffered;
      ++all_rows;
      if (buffered == buffer_rows) flush();
    }
  }

  void write_front(const RunInfo& info, std::span<const PlanPoint> front) {
    if (info.axes != layout.axes())
      throw OutputError(out(), fmt::format("the run has {} axes, the file layout {}", info.axes.size(), layout.axes().size()));
    if (all) flush();
    std::vector<std::byte> rows(std::max<std::size_t>(front.size(), 1) * type.row_bytes);
    for (std::size_t i = 0; i < front.size(); ++i) h5io::pack(layout, type, front[i], rows.data() + i * type.row_bytes);
    const hsize_t count = front.size();
    H5::DataSet dataset = file->createDataSet(std::string(n::kFront), type.file, H5::DataSpace(1, &count));
    if (count > 0) dataset.write(rows.data(), type.memory);
    h5io::write_attribute(dataset, n::kUnits, units_of(layout));
    write_run_info(*file, info);
  }

  void close() {
    all.reset();
    if (file) {
      file->close();
      file.reset();
    }
  }

  void discard() noexcept {
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
    try {
      f();
    } catch (const OutputError&) {
      discard();
      throw;
    } catch (const H5::Exception& e) {
      discard();
      throw OutputError(out(), fmt::format("HDF5 error in {}: {}", e.getFuncName(), e.getDetailMsg()));
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
  } catch (const H5::Exception& e) {
    throw OutputError(name, fmt::format("HDF5 error in {}: {}", e.getFuncName(), e.getDetailMsg()));
  }
  impl_->guarded([&] { impl_->open(); });
}

FrontWriter::~FrontWriter() {
  if (impl_ && !impl_->finished) impl_->discard();
}

void FrontWriter::append_all(std::span<const PlanPoint> batch) {
  impl_->guarded([&] { impl_->append(batch); });
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

void write_front(const fs::path& out, const RunInfo& info, std::span<const PlanPoint> front) {
  FrontWriter writer(out, RowLayout::fit(front, info.axes));
  writer.finish(info, front);
}

}  // namespace shardmeter::results
