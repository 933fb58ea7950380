#pragma once
// HDF5 building blocks shared by the writer and the reader: the compound row type of a layout, packing a point
// into it, and typed root attributes. Internal to results/ (includes H5Cpp.h); consumers use hdf5_writer.hpp and
// hdf5_reader.hpp.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <string>
#include <string_view>
#include <vector>

#include <H5Cpp.h>

#include "results/files/row_layout.hpp"

namespace shardmeter::results::h5io {

// A row as HDF5 sees it: one compound member per column, packed (no padding), little-endian in the file.
struct RowType {
  H5::CompType file;     // IEEE/STD little-endian types, fixed-length null-padded UTF-8 strings
  H5::CompType memory;   // native types at the same offsets (each column's Step::offset)
  std::size_t row_bytes = 0;
  // What pack() does per column, from the layout's FileColumns (about 160 bytes each, with their names and
  // std::functions) into 48 bytes: the loop over a row's ~150 columns then reads 7 KB, not 24 KB.
  struct Step {
    FileColumn::Source source;
    ColumnType type;
    std::uint32_t offset;
    int island;
    std::uint32_t column;   // index in layout.columns() (for the label axis and error messages)
    model::MetricGetter metric;
    CellView (*scenario_view)(const model::Scenario&, int);
    CellView (*estimate_view)(const model::Estimate&, int);
  };
  std::vector<Step> steps;
};
RowType row_type(const RowLayout& layout);

// A failure in plain words for messages (no HDF5 function names): "<action> failed", plus the system's reason
// (errno) when it is a file-system one, e.g. "writing the file failed: No space left on device".
std::string failure_text(std::string_view action);

// Where Owned puts objects it must never close again (never destroyed, so still reachable at exit).
std::vector<void*>& kept_open();

// An HDF5 object (file, dataset) that is closed explicitly, once. When its close() fails (a full disk while
// flushing), or it is dropped without close() while an error unwinds, it is never closed again: HDF5 may have
// released part of the file's state, and the destructor's second close crashed (issue 14, exit 139). Such an
// object stays open until the process ends; its temporary file is removed by AtomicFile.
template <class T>
class Owned {
public:
  Owned() = default;
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  ~Owned() { abandon(); }

  template <class... Args>
  void emplace(Args&&... args) {
    abandon();
    object_ = std::make_unique<T>(std::forward<Args>(args)...);
  }
  explicit operator bool() const { return object_ != nullptr; }
  T* operator->() const { return object_.get(); }
  T& operator*() const { return *object_; }

  void close() {
    if (!object_) return;
    try {
      object_->close();
    } catch (...) {
      abandon();
      throw;
    }
    object_.reset();
  }
  void abandon() noexcept {
    if (!object_) return;
    T* const object = object_.release();
    try {
      kept_open().push_back(object);
    } catch (...) {  // out of memory: leaking the handle is still better than closing it twice
    }
  }

private:
  std::unique_ptr<T> object_;
};

// Writes the point's cells at `dst` (row_bytes bytes). Throws ResultsError when the point does not fit the layout.
void pack(const RowLayout& layout, const RowType& type, const PlanPoint& point, std::byte* dst);
// The same from a view of the row's sources (no PlanPoint). Only reads the layout and the type: safe on several
// threads at once.
void pack(const RowLayout& layout, const RowType& type, const RowView& row, std::byte* dst);

// Fixed-length null-padded UTF-8 strings of `width` bytes (numpy 'S' semantics: shorter values are padded with NULs).
H5::StrType fixed_text(std::size_t width);
// h5py's boolean: an int8 enum {FALSE = 0, TRUE = 1}, which h5py reads as numpy.bool_.
H5::EnumType bool_type();

void write_attribute(H5::H5Object& object, std::string_view name, std::string_view value);
void write_attribute(H5::H5Object& object, std::string_view name, std::int64_t value);
void write_attribute(H5::H5Object& object, std::string_view name, std::uint64_t value);
void write_attribute(H5::H5Object& object, std::string_view name, double value);
void write_attribute(H5::H5Object& object, std::string_view name, bool value);
void write_attribute(H5::H5Object& object, std::string_view name, const std::vector<std::string>& values);

bool has_attribute(const H5::H5Object& object, std::string_view name);
// Readers convert among integer widths and accept h5py's boolean enum as 0/1. Throw H5::Exception on a missing
// attribute or an unconvertible type; callers map that to InputError.
std::string read_text_attribute(const H5::H5Object& object, std::string_view name);
std::int64_t read_int_attribute(const H5::H5Object& object, std::string_view name);
std::uint64_t read_uint_attribute(const H5::H5Object& object, std::string_view name);
double read_double_attribute(const H5::H5Object& object, std::string_view name);
bool read_bool_attribute(const H5::H5Object& object, std::string_view name);
std::vector<std::string> read_text_array_attribute(const H5::H5Object& object, std::string_view name);
std::vector<std::string> attribute_names(const H5::H5Object& object);

}  // namespace shardmeter::results::h5io
