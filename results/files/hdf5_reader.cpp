#include "results/files/hdf5_reader.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "model/spec/metrics.hpp"
#include "results/errors.hpp"
#include "results/markup.hpp"
#include "results/front/objective.hpp"
#include "results/files/hdf5_io.hpp"
#include "results/files/hdf5_names.hpp"

namespace shardmeter::results {

namespace fs = std::filesystem;
namespace n = h5names;

namespace {

constexpr hsize_t kBlockRows = 16384;  // rows decoded per read when streaming a dataset (at most kBlockBytes)
constexpr std::size_t kBlockBytes = std::size_t{16} << 20;
constexpr std::size_t kMaxRowBytes = std::size_t{1} << 20;  // our rows are a few hundred bytes
// Deflate expands at most 1032:1 (zlib's technical details); a dataset that declares more rows than its stored bytes
// could hold even so is hostile (HDF5 would return fill values for storage that does not exist).
constexpr hsize_t kMaxExpansion = 1100;

enum class MemberKind { int64, uint64, float64, text, boolean };
struct Member {
  std::string name;
  MemberKind kind;
  std::size_t offset = 0;
  std::size_t size = 0;
};

struct Decoder {
  std::vector<Member> members;
  H5::CompType memory;
  std::size_t row_bytes = 0;
};

// A native, packed memory type for the file's compound; every member must be a 64-bit number, a fixed string or
// h5py's one-byte bool enum.
Decoder decoder_for(const H5::DataSet& dataset, const std::string& path, const std::string& name) {
  if (dataset.getTypeClass() != H5T_COMPOUND)
    throw InputError(path, InputProblem::wrong_schema, fmt::format("/{} is not a compound dataset", name));
  const H5::CompType file_type = dataset.getCompType();
  Decoder d;
  const int count = file_type.getNmembers();
  if (count <= 0) throw InputError(path, InputProblem::wrong_schema, fmt::format("/{} has no columns", name));
  for (int i = 0; i < count; ++i) {
    const auto idx = static_cast<unsigned>(i);
    Member m{file_type.getMemberName(idx), MemberKind::float64, d.row_bytes, 8};
    switch (file_type.getMemberClass(idx)) {
      case H5T_INTEGER:
        m.kind = file_type.getMemberIntType(idx).getSign() == H5T_SGN_NONE ? MemberKind::uint64 : MemberKind::int64;
        break;
      case H5T_FLOAT: m.kind = MemberKind::float64; break;
      case H5T_ENUM:
        if (file_type.getMemberEnumType(idx).getSize() != 1)
          throw InputError(path, InputProblem::wrong_schema,
                           fmt::format("column `{}` of /{} is an enum but not a boolean", m.name, name));
        m.kind = MemberKind::boolean;
        m.size = 1;
        break;
      case H5T_STRING: {
        const H5::StrType s = file_type.getMemberStrType(idx);
        if (s.isVariableStr())
          throw InputError(path, InputProblem::wrong_schema,
                           fmt::format("column `{}` of /{} is a variable-length string", m.name, name));
        m.kind = MemberKind::text;
        m.size = s.getSize();
        break;
      }
      default:
        throw InputError(path, InputProblem::wrong_schema,
                         fmt::format("column `{}` of /{} has an unsupported type", m.name, name));
    }
    d.row_bytes += m.size;
    if (d.row_bytes > kMaxRowBytes)
      throw InputError(path, InputProblem::wrong_schema,
                       fmt::format("/{} has rows of more than {} bytes", name, kMaxRowBytes));
    d.members.push_back(std::move(m));
  }
  d.memory = H5::CompType(std::max<std::size_t>(d.row_bytes, 1));
  for (const Member& m : d.members) {
    switch (m.kind) {
      case MemberKind::int64: d.memory.insertMember(m.name, m.offset, H5::PredType::NATIVE_INT64); break;
      case MemberKind::uint64: d.memory.insertMember(m.name, m.offset, H5::PredType::NATIVE_UINT64); break;
      case MemberKind::float64: d.memory.insertMember(m.name, m.offset, H5::PredType::NATIVE_DOUBLE); break;
      case MemberKind::text: {
        d.memory.insertMember(m.name, m.offset, h5io::fixed_text(m.size));
        break;
      }
      case MemberKind::boolean: d.memory.insertMember(m.name, m.offset, h5io::bool_type()); break;
    }
  }
  return d;
}

// The magnitudes a number read from a result file may have besides zero: what the tool writes lies far inside, and a
// value outside (a subnormal, 1e300) would make a report's ratios and sums overflow or lose every digit (issue 33).
constexpr double kSmallestNumber = 1e-100;
constexpr double kLargestNumber = 1e100;

// Refuses a float cell that is not finite or out of range, naming the dataset, row and column.
void check_number(double v, const Member& m, const std::string& path, std::string_view dataset, hsize_t row) {
  const double a = std::fabs(v);
  if (std::isfinite(v) && (a == 0 || (a >= kSmallestNumber && a <= kLargestNumber))) return;
  throw InputError(path, InputProblem::wrong_schema,
                   fmt::format("/{} row {} (from 0), column `{}`: {} is not a usable number (finite, 0 or of magnitude "
                               "between {:g} and {:g}); the file is damaged or was not written by ShardMeter",
                               dataset, row, message_excerpt(m.name), v, kSmallestNumber, kLargestNumber));
}

Row decode(const Decoder& d, const std::byte* at, const std::string& path, std::string_view dataset, hsize_t index) {
  Row row;
  for (const Member& m : d.members) {
    const std::byte* p = at + m.offset;
    switch (m.kind) {
      case MemberKind::int64: {
        std::int64_t v;
        std::memcpy(&v, p, 8);
        row.emplace(m.name, CellValue{v});
        break;
      }
      case MemberKind::uint64: {
        std::uint64_t v;
        std::memcpy(&v, p, 8);
        row.emplace(m.name, CellValue{static_cast<std::int64_t>(v)});
        break;
      }
      case MemberKind::float64: {
        double v;
        std::memcpy(&v, p, 8);
        check_number(v, m, path, dataset, index);
        row.emplace(m.name, CellValue{v});
        break;
      }
      case MemberKind::text: {
        const char* c = reinterpret_cast<const char*>(p);
        row.emplace(m.name, CellValue{std::string(c, strnlen(c, m.size))});
        break;
      }
      case MemberKind::boolean: {
        std::int8_t v;
        std::memcpy(&v, p, 1);
        row.emplace(m.name, CellValue{v != 0});
        break;
      }
    }
  }
  return row;
}

void for_each_row(const H5::DataSet& dataset, const Decoder& d, const std::function<void(const Row&)>& visit,
                  const std::string& path, std::string_view name) {
  H5::DataSpace space = dataset.getSpace();
  if (space.getSimpleExtentNdims() != 1) throw H5::DataSetIException("for_each_row", "dataset is not 1-dimensional");
  hsize_t rows = 0;
  space.getSimpleExtentDims(&rows);
  const hsize_t stored = dataset.getStorageSize();
  if (rows / kMaxExpansion > stored / d.row_bytes + 1)
    throw InputError(path, InputProblem::wrong_schema,
                     fmt::format("/{} declares {} rows but stores only {} bytes", name, rows, stored));
  const hsize_t block = std::clamp<hsize_t>(kBlockBytes / d.row_bytes, 1, kBlockRows);
  std::vector<std::byte> buffer(static_cast<std::size_t>(std::min(rows, block)) * d.row_bytes);
  for (hsize_t start = 0; start < rows; start += block) {
    const hsize_t count = std::min(block, rows - start);
    space.selectHyperslab(H5S_SELECT_SET, &count, &start);
    const H5::DataSpace memory(1, &count);
    dataset.read(buffer.data(), d.memory, memory, space);
    for (hsize_t i = 0; i < count; ++i) visit(decode(d, buffer.data() + i * d.row_bytes, path, name, start + i));
  }
}

// Maps HDF5 failures while reading data to InputError.
template <class F>
auto reading(const std::string& path, F&& f) {
  try {
    return f();
  } catch (const H5::Exception&) {
    throw InputError(path, InputProblem::wrong_schema, "its data cannot be read as a ShardMeter result file");
  }
}

// Opens a ShardMeter result file, or throws the InputError saying why it is not one.
H5::H5File open_result(const fs::path& path) {
  const std::string p = path.string();
  H5::Exception::dontPrint();
  std::error_code ec;
  if (!fs::exists(path, ec)) throw InputError(p, InputProblem::missing, "no such file");
  if (fs::is_directory(path, ec)) throw InputError(p, InputProblem::not_hdf5, "is a directory");
  H5::H5File file;
  try {
    if (!H5::H5File::isHdf5(p)) throw InputError(p, InputProblem::not_hdf5, "not an HDF5 file");
    file.openFile(p, H5F_ACC_RDONLY);
  } catch (const H5::Exception&) {
    throw InputError(p, InputProblem::not_hdf5, "it is damaged or not an HDF5 file (it cannot be opened)");
  }
  std::string format;
  bool has_front = false;
  try {
    const H5::Group root = file.openGroup("/");
    if (h5io::has_attribute(root, n::kFormatAttr)) format = h5io::read_text_attribute(root, n::kFormatAttr);
    has_front = file.nameExists(std::string(n::kFront));
  } catch (const H5::Exception&) {
  }
  const H5::Group root = reading(p, [&] { return file.openGroup("/"); });
  if (format != n::kFormat || !has_front)
    throw InputError(p, InputProblem::not_shardmeter,
                     fmt::format("not a ShardMeter result file (no `{}` = \"{}\" attribute or no /{} dataset)",
                                 n::kFormatAttr, n::kFormat, n::kFront));
  std::int64_t version = 0;
  try {
    version = h5io::read_int_attribute(root, n::kSchemaVersionAttr);
  } catch (const H5::Exception&) {
    throw InputError(p, InputProblem::wrong_schema, "no integer `schema_version` attribute");
  }
  if (version < n::kOldestSchemaVersion || version > n::kSchemaVersion)
    throw InputError(p, InputProblem::wrong_schema,
                     fmt::format("schema_version {} (this ShardMeter reads {} to {})", version, n::kOldestSchemaVersion,
                                 n::kSchemaVersion));
  return file;
}

RunInfo read_run_info(const H5::H5File& file, const std::string& path) {
  const H5::Group root = file.openGroup("/");
  RunInfo info;
  std::string_view current;
  try {
    using namespace h5io;
    current = n::kScenario;
    info.scenario_text = read_text_attribute(root, current);
    current = n::kScenarioName;
    info.scenario_name = read_text_attribute(root, current);
    current = n::kVersion;
    info.version = read_text_attribute(root, current);
    current = n::kMethod;
    info.method = read_text_attribute(root, current);
    current = n::kSeed;
    info.seed = read_uint_attribute(root, current);
    current = n::kThreads;
    info.threads = read_int_attribute(root, current);
    current = n::kRanks;
    if (has_attribute(root, current)) info.ranks = read_int_attribute(root, current);
    current = n::kSpaceSize;
    info.space_size = read_uint_attribute(root, current);
    const std::int64_t version = read_int_attribute(root, n::kSchemaVersionAttr);
    current = version == 1 ? n::kVisitedV1 : n::kVisited;
    info.visited = read_uint_attribute(root, current);
    current = n::kEstimated;
    if (has_attribute(root, current)) info.estimated = read_uint_attribute(root, current);
    current = n::kFeasible;
    info.feasible = read_uint_attribute(root, current);
    current = n::kElapsed;
    info.elapsed_s = read_double_attribute(root, current);
    current = n::kComplete;
    info.complete = read_bool_attribute(root, current);
    current = n::kObjectives;
    const std::vector<std::string> objectives = read_text_array_attribute(root, current);
    current = n::kObjectiveDirections;
    const std::vector<std::string> directions = read_text_array_attribute(root, current);
    if (directions.size() != objectives.size())
      throw InputError(path, InputProblem::wrong_schema, "`objectives` and `objective_directions` differ in length");
    for (std::size_t i = 0; i < objectives.size(); ++i) {
      const auto d = parse_direction(directions[i]);
      if (!d)
        throw InputError(path, InputProblem::wrong_schema, fmt::format("objective direction \"{}\"", directions[i]));
      const model::Metric* metric = model::find_metric(objectives[i]);
      if (metric == nullptr)
        throw InputError(path, InputProblem::wrong_schema, fmt::format("objective \"{}\" is not a metric", objectives[i]));
      info.objectives.push_back(model::Objective{metric, *d});
    }
    current = n::kAxes;
    info.axes = read_text_array_attribute(root, current);
    current = n::kCreated;
    info.created = read_text_attribute(root, current);
    current = n::kUncalibratedGpus;
    if (has_attribute(root, current)) info.uncalibrated_gpus = read_text_array_attribute(root, current);
    current = n::kUncalibratedGpuStacks;
    if (has_attribute(root, current)) info.uncalibrated_gpu_stacks = read_text_array_attribute(root, current);
    current = n::kStackSource;
    if (has_attribute(root, current)) info.stack_source = read_text_attribute(root, current);
    current = n::kCountsEstimated;
    if (has_attribute(root, current)) info.counts_estimated = read_bool_attribute(root, current);
    for (const std::string& name : attribute_names(root)) {
      if (!name.starts_with(n::kRejectedPrefix)) continue;
      current = name;
      info.rejected[name.substr(n::kRejectedPrefix.size())] = read_uint_attribute(root, name);
    }
  } catch (const H5::Exception&) {
    throw InputError(path, InputProblem::wrong_schema,
                     fmt::format("root attribute `{}` is missing or of another type", message_excerpt(current)));
  }
  return info;
}

// Streams a table: `header` gets its columns and units (rows empty), then `visit` each row.
void stream_table(const H5::H5File& file, const std::string& path, std::string_view name,
                  const std::function<void(const Table&)>& header, const std::function<void(const Row&)>& visit) {
  const H5::DataSet dataset = file.openDataSet(std::string(name));
  const Decoder d = decoder_for(dataset, path, std::string(name));
  Table t;
  for (const Member& m : d.members) t.columns.push_back(m.name);
  if (h5io::has_attribute(dataset, n::kUnits)) {
    t.units = h5io::read_text_array_attribute(dataset, n::kUnits);
    if (t.units.size() != t.columns.size()) t.units.clear();   // not one per column: treat as unknown
  }
  header(t);
  for_each_row(dataset, d, visit, path, name);
}

}  // namespace

namespace in_process {

void for_each_front_row(const fs::path& path, const std::function<void(const FrontHeader&)>& header,
                        const std::function<void(const Row&)>& visit) {
  const std::string p = path.string();
  reading(p, [&] {
    const H5::H5File file = open_result(path);
    FrontHeader h;
    h.info = read_run_info(file, p);
    h.has_all = file.nameExists(std::string(n::kAll));
    stream_table(
        file, p, n::kFront,
        [&](const Table& t) {
          h.columns = t.columns;
          h.units = t.units;
          header(h);
        },
        visit);
    return 0;
  });
}

ResultFile read_front(const fs::path& path) {
  ResultFile out;
  for_each_front_row(
      path,
      [&](const FrontHeader& h) {
        out.info = h.info;
        out.front.columns = h.columns;
        out.front.units = h.units;
        out.has_all = h.has_all;
      },
      [&](const Row& r) { out.front.rows.push_back(r); });
  return out;
}

void for_each_all_row(const fs::path& path, const std::function<void(const Row&)>& visit,
                      std::vector<std::string>* columns) {
  const std::string p = path.string();
  reading(p, [&] {
    const H5::H5File file = open_result(path);
    if (!file.nameExists(std::string(n::kAll)))
      throw InputError(p, InputProblem::missing_dataset, "no /all dataset (the search ran without --all)");
    const H5::DataSet dataset = file.openDataSet(std::string(n::kAll));
    const Decoder d = decoder_for(dataset, p, std::string(n::kAll));
    if (columns != nullptr)
      for (const Member& m : d.members) columns->push_back(m.name);
    for_each_row(dataset, d, visit, p, n::kAll);
    return 0;
  });
}

}  // namespace in_process

}  // namespace shardmeter::results
