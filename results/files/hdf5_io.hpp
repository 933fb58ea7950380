#pragma once
// HDF5 building blocks shared by the writer and the reader: the compound row type of a layout, packing a point
// into it, and typed root attributes. Internal to results/ (includes H5Cpp.h); consumers use hdf5_writer.hpp and
// hdf5_reader.hpp.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <H5Cpp.h>

#include "results/files/row_layout.hpp"

namespace shardmeter::results::h5io {

// A row as HDF5 sees it: one compound member per column, packed (no padding), little-endian in the file.
struct RowType {
  H5::CompType file;     // IEEE/STD little-endian types, fixed-length null-padded UTF-8 strings
  H5::CompType memory;   // native types at the same offsets
  std::vector<std::size_t> offsets;
  std::size_t row_bytes = 0;
};
RowType row_type(const RowLayout& layout);

// Writes the point's cells at `dst` (row_bytes bytes). Throws ResultsError when the point does not fit the layout.
void pack(const RowLayout& layout, const RowType& type, const PlanPoint& point, std::byte* dst);

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
