#include "results/files/table_hdf5.hpp"

#include <algorithm>
#include <cstring>
#include <variant>

#include <fmt/format.h>

#include "results/errors.hpp"
#include "results/files/hdf5_io.hpp"
#include "results/files/hdf5_names.hpp"

namespace shardmeter::results {

namespace {

enum class Kind { int64, float64, text, boolean };

struct Member {
  Kind kind = Kind::float64;
  std::size_t offset = 0;
  std::size_t size = 8;
};

Kind kind_of(const CellValue& v) {
  if (std::holds_alternative<std::int64_t>(v)) return Kind::int64;
  if (std::holds_alternative<double>(v)) return Kind::float64;
  if (std::holds_alternative<bool>(v)) return Kind::boolean;
  return Kind::text;
}

const CellValue& cell(const Table& table, std::size_t row, const std::string& column) {
  const auto it = table.rows[row].find(column);
  if (it == table.rows[row].end()) throw ResultsError(fmt::format("row {} has no column `{}`", row, column));
  return it->second;
}

void write(const std::filesystem::path& file, std::string_view name, const Table& table,
           const std::vector<std::string>& units, const TableAttributes& root) {
  if (!units.empty() && units.size() != table.columns.size())
    throw ResultsError(fmt::format("{} units for {} columns", units.size(), table.columns.size()));
  // Column types from the first row; widths of text columns from the longest value.
  std::vector<Member> members(table.columns.size());
  std::size_t row_bytes = 0;
  for (std::size_t c = 0; c < table.columns.size(); ++c) {
    Member& m = members[c];
    m.kind = table.rows.empty() ? Kind::float64 : kind_of(cell(table, 0, table.columns[c]));
    if (m.kind == Kind::text) {
      m.size = 1;
      for (std::size_t r = 0; r < table.rows.size(); ++r) {
        const CellValue& v = cell(table, r, table.columns[c]);
        if (kind_of(v) != Kind::text) throw ResultsError(fmt::format("column `{}` mixes text and numbers", table.columns[c]));
        m.size = std::max(m.size, std::get<std::string>(v).size());
      }
    }
    if (m.kind == Kind::boolean) m.size = 1;
    m.offset = row_bytes;
    row_bytes += m.size;
  }
  H5::CompType file_type(std::max<std::size_t>(row_bytes, 1)), memory_type(std::max<std::size_t>(row_bytes, 1));
  for (std::size_t c = 0; c < members.size(); ++c) {
    const Member& m = members[c];
    switch (m.kind) {
      case Kind::int64:
        file_type.insertMember(table.columns[c], m.offset, H5::PredType::STD_I64LE);
        memory_type.insertMember(table.columns[c], m.offset, H5::PredType::NATIVE_INT64);
        break;
      case Kind::float64:
        file_type.insertMember(table.columns[c], m.offset, H5::PredType::IEEE_F64LE);
        memory_type.insertMember(table.columns[c], m.offset, H5::PredType::NATIVE_DOUBLE);
        break;
      case Kind::text:
        file_type.insertMember(table.columns[c], m.offset, h5io::fixed_text(m.size));
        memory_type.insertMember(table.columns[c], m.offset, h5io::fixed_text(m.size));
        break;
      case Kind::boolean:
        file_type.insertMember(table.columns[c], m.offset, h5io::bool_type());
        memory_type.insertMember(table.columns[c], m.offset, h5io::bool_type());
        break;
    }
  }
  std::vector<std::byte> rows(std::max<std::size_t>(table.rows.size(), 1) * std::max<std::size_t>(row_bytes, 1));
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    std::byte* dst = rows.data() + r * row_bytes;
    for (std::size_t c = 0; c < members.size(); ++c) {
      const CellValue& v = cell(table, r, table.columns[c]);
      if (kind_of(v) != members[c].kind)
        throw ResultsError(fmt::format("column `{}` holds values of different types", table.columns[c]));
      std::byte* at = dst + members[c].offset;
      if (const auto* i = std::get_if<std::int64_t>(&v)) std::memcpy(at, i, 8);
      else if (const auto* d = std::get_if<double>(&v)) std::memcpy(at, d, 8);
      else if (const auto* b = std::get_if<bool>(&v)) {
        const std::int8_t byte = *b ? 1 : 0;
        std::memcpy(at, &byte, 1);
      } else {
        const std::string& s = std::get<std::string>(v);
        std::memcpy(at, s.data(), s.size());
      }
    }
  }

  H5::Exception::dontPrint();
  H5::H5File h5(file.string(), H5F_ACC_RDWR);
  const hsize_t count = table.rows.size();
  H5::DataSet dataset = h5.createDataSet(std::string(name), file_type, H5::DataSpace(1, &count));
  if (count > 0 && row_bytes > 0) dataset.write(rows.data(), memory_type);
  if (!units.empty()) h5io::write_attribute(dataset, h5names::kUnits, units);
  H5::Group group = h5.openGroup("/");
  for (const auto& [key, value] : root.text) h5io::write_attribute(group, key, value);
  for (const auto& [key, value] : root.numbers) h5io::write_attribute(group, key, value);
  for (const auto& [key, value] : root.lists) h5io::write_attribute(group, key, value);
  h5.close();
}

}  // namespace

void add_table_dataset(const std::filesystem::path& file, std::string_view name, const Table& table,
                       const std::vector<std::string>& units, const TableAttributes& root) {
  try {
    write(file, name, table, units, root);
  } catch (const H5::Exception& e) {
    throw OutputError(file.string(), fmt::format("HDF5 error in {}: {}", e.getFuncName(), e.getDetailMsg()));
  } catch (const OutputError&) {
    throw;
  } catch (const std::exception& e) {
    throw OutputError(file.string(), e.what());
  }
}

}  // namespace shardmeter::results
