#include "results/files/hdf5_io.hpp"

#include <cerrno>
#include <cstring>
#include <system_error>

#include <fmt/format.h>

#include "results/errors.hpp"

namespace shardmeter::results::h5io {

namespace {

H5::DataSpace scalar() { return H5::DataSpace(H5S_SCALAR); }

H5::Attribute create(H5::H5Object& object, std::string_view name, const H5::DataType& type,
                     const H5::DataSpace& space) {
  const std::string n(name);
  if (object.attrExists(n)) object.removeAttr(n);
  return object.createAttribute(n, type, space);
}

// Variable-length UTF-8 strings (h5py reads them as str).
H5::StrType text_type() {
  H5::StrType t(H5::PredType::C_S1, H5T_VARIABLE);
  t.setCset(H5T_CSET_UTF8);
  return t;
}

}  // namespace

H5::EnumType bool_type() {
  H5::EnumType t(H5::PredType::NATIVE_INT8);
  std::int8_t no = 0, yes = 1;  // EnumType::insert takes void* in HDF5 1.10
  t.insert("FALSE", &no);
  t.insert("TRUE", &yes);
  return t;
}

H5::StrType fixed_text(std::size_t width) {
  H5::StrType t(H5::PredType::C_S1, width);
  t.setCset(H5T_CSET_UTF8);
  t.setStrpad(H5T_STR_NULLPAD);
  return t;
}

std::vector<void*>& kept_open() {
  static auto* const objects = new std::vector<void*>;  // never destroyed, on purpose
  return *objects;
}

std::string failure_text(std::string_view action) {
  const int error = errno;
  std::string text = std::string(action) + " failed";
  switch (error) {
    case ENOSPC: case EFBIG: case EDQUOT: case EIO: case EACCES: case EPERM: case EROFS: case ENOENT: case EISDIR:
      text += ": " + std::generic_category().message(error);
      break;
    default:
      break;
  }
  return text;
}

RowType row_type(const RowLayout& layout) {
  RowType t;
  for (const FileColumn& c : layout.columns()) {
    t.steps.push_back(RowType::Step{c.source, c.type, static_cast<std::uint32_t>(t.row_bytes), c.island,
                                    static_cast<std::uint32_t>(t.steps.size()), c.metric, c.scenario_view,
                                    c.estimate_view});
    t.row_bytes += c.type == ColumnType::text ? c.text_width : c.type == ColumnType::boolean ? 1 : 8;
  }
  t.file = H5::CompType(t.row_bytes);
  t.memory = H5::CompType(t.row_bytes);
  for (std::size_t i = 0; i < layout.columns().size(); ++i) {
    const FileColumn& c = layout.columns()[i];
    switch (c.type) {
      case ColumnType::uint64:
        t.file.insertMember(c.name, t.steps[i].offset, H5::PredType::STD_U64LE);
        t.memory.insertMember(c.name, t.steps[i].offset, H5::PredType::NATIVE_UINT64);
        break;
      case ColumnType::int64:
        t.file.insertMember(c.name, t.steps[i].offset, H5::PredType::STD_I64LE);
        t.memory.insertMember(c.name, t.steps[i].offset, H5::PredType::NATIVE_INT64);
        break;
      case ColumnType::float64:
        t.file.insertMember(c.name, t.steps[i].offset, H5::PredType::IEEE_F64LE);
        t.memory.insertMember(c.name, t.steps[i].offset, H5::PredType::NATIVE_DOUBLE);
        break;
      case ColumnType::text:
        t.file.insertMember(c.name, t.steps[i].offset, fixed_text(c.text_width));
        t.memory.insertMember(c.name, t.steps[i].offset, fixed_text(c.text_width));
        break;
      case ColumnType::boolean:
        t.file.insertMember(c.name, t.steps[i].offset, bool_type());
        t.memory.insertMember(c.name, t.steps[i].offset, bool_type());
        break;
    }
  }
  return t;
}

void pack(const RowLayout& layout, const RowType& type, const PlanPoint& point, std::byte* dst) {
  std::vector<std::string_view> labels(point.labels.begin(), point.labels.end());
  pack(layout, type, RowView{point.scenario, point.estimate, point.index, labels}, dst);
}

namespace {

// v is a CellView: no string copied, nothing to destroy.
void put_cell(const RowType::Step& step, const std::vector<FileColumn>& columns, const CellView& v,
              std::uint64_t index, std::byte* at) {
  switch (step.type) {
    case ColumnType::uint64: {
      const auto u = static_cast<std::uint64_t>(std::get<std::int64_t>(v));
      std::memcpy(at, &u, sizeof u);
      break;
    }
    case ColumnType::int64: std::memcpy(at, &std::get<std::int64_t>(v), 8); break;
    case ColumnType::float64: std::memcpy(at, &std::get<double>(v), 8); break;
    case ColumnType::text: {
      const std::string_view s = std::get<std::string_view>(v);
      RowLayout::check_text(index, columns[step.column], s);
      std::memcpy(at, s.data(), s.size());
      break;
    }
    case ColumnType::boolean: {
      const std::int8_t b = std::get<bool>(v) ? 1 : 0;
      std::memcpy(at, &b, 1);
      break;
    }
  }
}

}  // namespace

void pack(const RowLayout& layout, const RowType& type, const RowView& row, std::byte* dst) {
  // Cell by cell straight into the row (no vector of cells: this runs for every row of /all), with cells()'s checks;
  // each column read from its source (FileColumn::Source), the values get() gives.
  layout.check_shape(row.index, row.scenario.cluster.island_entries, row.labels.size());
  std::memset(dst, 0, type.row_bytes);
  const std::vector<FileColumn>& columns = layout.columns();
  for (const RowType::Step& step : type.steps) {
    std::byte* at = dst + step.offset;
    switch (step.source) {
      case FileColumn::Source::index: {
        const std::uint64_t u = row.index;
        std::memcpy(at, &u, sizeof u);
        break;
      }
      case FileColumn::Source::metric: {
        const double value = step.metric(row.estimate);
        if (step.type == ColumnType::boolean) {
          const std::int8_t b = value != 0 ? 1 : 0;
          std::memcpy(at, &b, 1);
        } else {
          std::memcpy(at, &value, 8);
        }
        break;
      }
      case FileColumn::Source::scenario:
        put_cell(step, columns, step.scenario_view(row.scenario, step.island), row.index, at);
        break;
      case FileColumn::Source::estimate:
        put_cell(step, columns, step.estimate_view(row.estimate, step.island), row.index, at);
        break;
      case FileColumn::Source::label: {
        const FileColumn& c = columns[step.column];
        const std::string_view s = row.labels[c.label];
        RowLayout::check_text(row.index, c, s);
        std::memcpy(at, s.data(), s.size());
        break;
      }
    }
  }
}

void write_attribute(H5::H5Object& object, std::string_view name, std::string_view value) {
  const H5::StrType type = text_type();
  create(object, name, type, scalar()).write(type, std::string(value));
}
void write_attribute(H5::H5Object& object, std::string_view name, std::int64_t value) {
  create(object, name, H5::PredType::STD_I64LE, scalar()).write(H5::PredType::NATIVE_INT64, &value);
}
void write_attribute(H5::H5Object& object, std::string_view name, std::uint64_t value) {
  create(object, name, H5::PredType::STD_U64LE, scalar()).write(H5::PredType::NATIVE_UINT64, &value);
}
void write_attribute(H5::H5Object& object, std::string_view name, double value) {
  create(object, name, H5::PredType::IEEE_F64LE, scalar()).write(H5::PredType::NATIVE_DOUBLE, &value);
}
void write_attribute(H5::H5Object& object, std::string_view name, bool value) {
  const H5::EnumType type = bool_type();
  const std::int8_t v = value ? 1 : 0;
  create(object, name, type, scalar()).write(type, &v);
}
void write_attribute(H5::H5Object& object, std::string_view name, const std::vector<std::string>& values) {
  const hsize_t n = values.size();
  const H5::StrType type = text_type();
  std::vector<const char*> ptrs;
  for (const std::string& s : values) ptrs.push_back(s.c_str());
  H5::Attribute a = create(object, name, type, H5::DataSpace(1, &n));
  if (n > 0) a.write(type, ptrs.data());
}

bool has_attribute(const H5::H5Object& object, std::string_view name) {
  return object.attrExists(std::string(name));
}

std::string read_text_attribute(const H5::H5Object& object, std::string_view name) {
  const H5::Attribute a = object.openAttribute(std::string(name));
  if (a.getTypeClass() != H5T_STRING)
    throw H5::AttributeIException("read_text_attribute", fmt::format("attribute `{}` is not text", name));
  std::string value;
  a.read(a.getStrType(), value);  // handles fixed- and variable-length strings
  return value;
}

std::int64_t read_int_attribute(const H5::H5Object& object, std::string_view name) {
  const H5::Attribute a = object.openAttribute(std::string(name));
  if (a.getTypeClass() == H5T_ENUM) return read_bool_attribute(object, name) ? 1 : 0;
  if (a.getTypeClass() != H5T_INTEGER)
    throw H5::AttributeIException("read_int_attribute", fmt::format("attribute `{}` is not an integer", name));
  std::int64_t v = 0;
  a.read(H5::PredType::NATIVE_INT64, &v);
  return v;
}

std::uint64_t read_uint_attribute(const H5::H5Object& object, std::string_view name) {
  const H5::Attribute a = object.openAttribute(std::string(name));
  if (a.getTypeClass() != H5T_INTEGER)
    throw H5::AttributeIException("read_uint_attribute", fmt::format("attribute `{}` is not an integer", name));
  std::uint64_t v = 0;
  a.read(H5::PredType::NATIVE_UINT64, &v);
  return v;
}

double read_double_attribute(const H5::H5Object& object, std::string_view name) {
  const H5::Attribute a = object.openAttribute(std::string(name));
  if (a.getTypeClass() != H5T_FLOAT && a.getTypeClass() != H5T_INTEGER)
    throw H5::AttributeIException("read_double_attribute", fmt::format("attribute `{}` is not a number", name));
  double v = 0;
  a.read(H5::PredType::NATIVE_DOUBLE, &v);
  return v;
}

bool read_bool_attribute(const H5::H5Object& object, std::string_view name) {
  const H5::Attribute a = object.openAttribute(std::string(name));
  if (a.getTypeClass() == H5T_INTEGER) {
    std::int64_t v = 0;
    a.read(H5::PredType::NATIVE_INT64, &v);
    return v != 0;
  }
  if (a.getTypeClass() != H5T_ENUM || a.getDataType().getSize() != 1)
    throw H5::AttributeIException("read_bool_attribute", fmt::format("attribute `{}` is not a boolean", name));
  std::int8_t v = 0;
  a.read(a.getEnumType(), &v);  // enum -> integer has no conversion path; read with the file's own enum type
  return v != 0;
}

std::vector<std::string> read_text_array_attribute(const H5::H5Object& object, std::string_view name) {
  const H5::Attribute a = object.openAttribute(std::string(name));
  if (a.getTypeClass() != H5T_STRING)
    throw H5::AttributeIException("read_text_array_attribute", fmt::format("attribute `{}` is not text", name));
  const H5::DataSpace space = a.getSpace();
  const auto n = static_cast<std::size_t>(space.getSimpleExtentNpoints());
  std::vector<std::string> out;
  if (n == 0) return out;
  const H5::StrType file_type = a.getStrType();
  if (file_type.isVariableStr()) {
    const H5::StrType type = text_type();
    std::vector<char*> ptrs(n, nullptr);
    a.read(type, ptrs.data());
    for (char* p : ptrs) out.emplace_back(p != nullptr ? p : "");
    H5::DataSet::vlenReclaim(ptrs.data(), type, space);
  } else {
    const std::size_t width = file_type.getSize();
    std::vector<char> buffer(n * width);
    a.read(file_type, buffer.data());
    for (std::size_t i = 0; i < n; ++i) out.emplace_back(buffer.data() + i * width, strnlen(buffer.data() + i * width, width));
  }
  return out;
}

std::vector<std::string> attribute_names(const H5::H5Object& object) {
  std::vector<std::string> names;
  const int n = object.getNumAttrs();
  for (int i = 0; i < n; ++i) names.push_back(object.openAttribute(static_cast<unsigned>(i)).getName());
  return names;
}

}  // namespace shardmeter::results::h5io
