#include "results/files/table_hdf5.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <variant>

#include <fmt/format.h>

#include "results/errors.hpp"
#include "results/files/hdf5_io.hpp"
#include "results/files/hdf5_names.hpp"

namespace shardmeter::results {

namespace {

constexpr std::size_t kBufferBytes = 1 << 20;   // rows written per H5Dwrite

struct Member {
  CellKind kind = CellKind::float64;
  std::size_t offset = 0;
  std::size_t size = 8;
};

const CellValue& cell(const Table& table, std::size_t row, const std::string& column) {
  const auto it = table.rows[row].find(column);
  if (it == table.rows[row].end()) throw ResultsError(fmt::format("row {} has no column `{}`", row, column));
  return it->second;
}

// Runs `f`, turning every failure into an OutputError naming `file`.
template <class F>
void guarded(const std::filesystem::path& file, const char* doing, F&& f) {
  errno = 0;  // failure_text() reports the system's reason when HDF5 leaves one
  try {
    f();
  } catch (const H5::Exception&) {
    throw OutputError(file.string(), h5io::failure_text(doing));
  } catch (const OutputError&) {
    throw;
  } catch (const std::exception& e) {
    throw OutputError(file.string(), e.what());
  }
}

}  // namespace

CellKind cell_kind(const CellValue& v) {
  if (std::holds_alternative<std::int64_t>(v)) return CellKind::int64;
  if (std::holds_alternative<double>(v)) return CellKind::float64;
  if (std::holds_alternative<bool>(v)) return CellKind::boolean;
  return CellKind::text;
}

void widen_text_members(std::vector<TableMember>& members, std::span<const CellValue> cells) {
  for (std::size_t c = 0; c < members.size() && c < cells.size(); ++c) {
    if (members[c].kind != CellKind::text) continue;
    if (cell_kind(cells[c]) != CellKind::text)
      throw ResultsError(fmt::format("column `{}` mixes text and numbers", members[c].name));
    members[c].text_width = std::max(members[c].text_width, std::get<std::string>(cells[c]).size());
  }
}

struct TableDatasetWriter::Impl {
  std::filesystem::path path;
  std::vector<TableMember> columns;
  std::vector<std::string> units;
  std::uint64_t rows = 0;
  std::vector<Member> members;
  std::size_t row_bytes = 0;
  H5::CompType file_type, memory_type;
  h5io::Owned<H5::H5File> h5;  // closed once, even when the disk fills (h5io::Owned)
  h5io::Owned<H5::DataSet> dataset;
  std::vector<std::byte> buffer;
  std::size_t buffered = 0, buffer_rows = 1;
  std::uint64_t written = 0;   // rows written + buffered

  void open(std::string_view name) {
    if (!units.empty() && units.size() != columns.size())
      throw ResultsError(fmt::format("{} units for {} columns", units.size(), columns.size()));
    members.resize(columns.size());
    for (std::size_t c = 0; c < columns.size(); ++c) {
      Member& m = members[c];
      m.kind = columns[c].kind;
      m.size = m.kind == CellKind::text ? std::max<std::size_t>(columns[c].text_width, 1) : m.kind == CellKind::boolean ? 1 : 8;
      m.offset = row_bytes;
      row_bytes += m.size;
    }
    file_type = H5::CompType(std::max<std::size_t>(row_bytes, 1));
    memory_type = H5::CompType(std::max<std::size_t>(row_bytes, 1));
    for (std::size_t c = 0; c < members.size(); ++c) {
      const Member& m = members[c];
      const std::string& n = columns[c].name;
      switch (m.kind) {
        case CellKind::int64:
          file_type.insertMember(n, m.offset, H5::PredType::STD_I64LE);
          memory_type.insertMember(n, m.offset, H5::PredType::NATIVE_INT64);
          break;
        case CellKind::float64:
          file_type.insertMember(n, m.offset, H5::PredType::IEEE_F64LE);
          memory_type.insertMember(n, m.offset, H5::PredType::NATIVE_DOUBLE);
          break;
        case CellKind::text:
          file_type.insertMember(n, m.offset, h5io::fixed_text(m.size));
          memory_type.insertMember(n, m.offset, h5io::fixed_text(m.size));
          break;
        case CellKind::boolean:
          file_type.insertMember(n, m.offset, h5io::bool_type());
          memory_type.insertMember(n, m.offset, h5io::bool_type());
          break;
      }
    }
    buffer_rows = std::max<std::size_t>(1, kBufferBytes / std::max<std::size_t>(row_bytes, 1));
    buffer.assign(std::min<std::uint64_t>(std::max<std::uint64_t>(rows, 1), buffer_rows) * std::max<std::size_t>(row_bytes, 1),
                  std::byte{0});
    H5::Exception::dontPrint();
    h5.emplace(path.string(), H5F_ACC_RDWR);
    const hsize_t count = rows;
    dataset.emplace(h5->createDataSet(std::string(name), file_type, H5::DataSpace(1, &count)));
  }

  void append(std::span<const CellValue> cells) {
    if (cells.size() != members.size())
      throw ResultsError(fmt::format("a row of {} cells for {} columns", cells.size(), members.size()));
    if (written == rows) throw ResultsError(fmt::format("more than the {} rows of the table", rows));
    std::byte* dst = buffer.data() + buffered * row_bytes;
    std::fill(dst, dst + row_bytes, std::byte{0});
    for (std::size_t c = 0; c < members.size(); ++c) {
      const CellValue& v = cells[c];
      if (cell_kind(v) != members[c].kind)
        throw ResultsError(fmt::format("column `{}` holds values of different types", columns[c].name));
      std::byte* at = dst + members[c].offset;
      if (const auto* i = std::get_if<std::int64_t>(&v)) std::memcpy(at, i, 8);
      else if (const auto* d = std::get_if<double>(&v)) std::memcpy(at, d, 8);
      else if (const auto* b = std::get_if<bool>(&v)) {
        const std::int8_t byte = *b ? 1 : 0;
        std::memcpy(at, &byte, 1);
      } else {
        const std::string& s = std::get<std::string>(v);
        if (s.size() > members[c].size)
          throw ResultsError(fmt::format("column `{}`: a text of {} bytes in {}", columns[c].name, s.size(), members[c].size));
        std::memcpy(at, s.data(), s.size());
      }
    }
    ++buffered;
    ++written;
    if (buffered == buffer_rows) flush();
  }

  void flush() {
    if (buffered == 0 || row_bytes == 0) {
      buffered = 0;
      return;
    }
    const hsize_t count = buffered, first = written - buffered;
    H5::DataSpace space = dataset->getSpace();
    space.selectHyperslab(H5S_SELECT_SET, &count, &first);
    dataset->write(buffer.data(), memory_type, H5::DataSpace(1, &count), space);
    buffered = 0;
  }

  void finish(const TableAttributes& root) {
    if (written != rows) throw ResultsError(fmt::format("{} of the table's {} rows were written", written, rows));
    flush();
    if (!units.empty()) h5io::write_attribute(*dataset, h5names::kUnits, units);
    dataset.close();
    {
      H5::Group group = h5->openGroup("/");
      for (const auto& [key, value] : root.text) h5io::write_attribute(group, key, value);
      for (const auto& [key, value] : root.numbers) h5io::write_attribute(group, key, value);
      for (const auto& [key, value] : root.lists) h5io::write_attribute(group, key, value);
    }
    h5.close();
  }
};

TableDatasetWriter::TableDatasetWriter(std::filesystem::path file, std::string_view name, std::vector<TableMember> members,
                                       std::vector<std::string> units, std::uint64_t rows)
    : impl_(std::make_unique<Impl>()) {
  impl_->path = std::move(file);
  impl_->columns = std::move(members);
  impl_->units = std::move(units);
  impl_->rows = rows;
  guarded(impl_->path, "adding a table to the file", [&] { impl_->open(name); });
}

TableDatasetWriter::~TableDatasetWriter() = default;

void TableDatasetWriter::append(std::span<const CellValue> cells) {
  guarded(impl_->path, "adding a table to the file", [&] { impl_->append(cells); });
}

void TableDatasetWriter::finish(const TableAttributes& root) {
  guarded(impl_->path, "adding a table to the file", [&] { impl_->finish(root); });
}

void add_table_dataset(const std::filesystem::path& file, std::string_view name, const Table& table,
                       const std::vector<std::string>& units, const TableAttributes& root) {
  std::vector<TableMember> members;
  // Column types from the first row; widths of text columns from the longest value.
  for (const std::string& column : table.columns)
    members.push_back(TableMember{column, table.rows.empty() ? CellKind::float64 : cell_kind(cell(table, 0, column)), 1});
  const auto row_cells = [&](std::size_t r) {
    std::vector<CellValue> cells;
    for (const std::string& column : table.columns) cells.push_back(cell(table, r, column));
    return cells;
  };
  guarded(file, "adding a table to the file", [&] {
    for (std::size_t r = 0; r < table.rows.size(); ++r) widen_text_members(members, row_cells(r));
  });
  TableDatasetWriter writer(file, name, std::move(members), units, table.rows.size());
  for (std::size_t r = 0; r < table.rows.size(); ++r) writer.append(row_cells(r));
  writer.finish(root);
}

}  // namespace shardmeter::results
