// results::deflate_rows, the encoder of /all's chunks: whatever the rows, zlib's inflate (the code HDF5's deflate
// filter and h5py decode with) gives back exactly the input, and rows that repeat their neighbours shrink.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include <zlib.h>

#include "results/files/row_deflate.hpp"

using shardmeter::results::deflate_rows;

namespace {

std::vector<unsigned char> inflate_all(const std::vector<unsigned char>& z, std::size_t expected) {
  std::vector<unsigned char> out(expected + 16);   // room for more than expected, so extra output would show
  uLongf size = static_cast<uLongf>(out.size());
  const int rc = uncompress(out.data(), &size, z.data(), static_cast<uLong>(z.size()));
  REQUIRE(rc == Z_OK);
  out.resize(size);
  return out;
}

void round_trip(const std::vector<unsigned char>& data, std::size_t rows, std::size_t row_bytes) {
  REQUIRE(data.size() == rows * row_bytes);
  const std::vector<unsigned char> z = deflate_rows(data.data(), rows, row_bytes);
  CHECK(inflate_all(z, data.size()) == data);
}

// Rows like /all's: constant fields, a counter, a few values from short lists, a random double.
std::vector<unsigned char> table_rows(std::size_t rows, std::size_t row_bytes, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<unsigned char> data(rows * row_bytes, 0);
  for (std::size_t r = 0; r < rows; ++r) {
    unsigned char* row = data.data() + r * row_bytes;
    for (std::size_t j = 0; j < row_bytes; ++j) row[j] = static_cast<unsigned char>(j * 7);
    if (row_bytes >= 8) {
      const std::uint64_t index = 1000 + 3 * r;
      std::memcpy(row, &index, 8);
    }
    if (row_bytes >= 24) {
      const double v = std::uniform_real_distribution<double>(1, 2)(rng);
      std::memcpy(row + 8, &v, 8);
      row[16 + rng() % 8] = static_cast<unsigned char>(rng() % 4);
    }
  }
  return data;
}

}  // namespace

TEST_CASE("deflate_rows: inflate gives back every input exactly", "[results][row_deflate]") {
  SECTION("no rows, and rows of no bytes") {
    round_trip({}, 0, 100);
    round_trip({}, 5, 0);
  }
  SECTION("one short row, one byte per row") {
    round_trip({42}, 1, 1);
    round_trip({1, 2, 3}, 1, 3);
    std::vector<unsigned char> bytes(1000);
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>(i % 3 == 0 ? 9 : i);
    round_trip(bytes, bytes.size(), 1);
  }
  SECTION("long runs (matches capped at 258 bytes) and all-zero rows") {
    round_trip(std::vector<unsigned char>(100'000, 0), 100, 1000);
    round_trip(std::vector<unsigned char>(70'000, 0xab), 7, 10'000);
  }
  SECTION("random bytes (nothing to match: every byte a literal)") {
    std::mt19937 rng(7);
    std::vector<unsigned char> data(300 * 97);
    for (unsigned char& b : data) b = static_cast<unsigned char>(rng());
    round_trip(data, 300, 97);
  }
  SECTION("table-like rows of several widths, including rows wider than deflate's 32 KiB window") {
    for (const std::size_t row_bytes : {5, 24, 64, 1504, 4097, 40'000}) {
      INFO("row_bytes " << row_bytes);
      const std::size_t rows = row_bytes > 10'000 ? 3 : 200;
      round_trip(table_rows(rows, row_bytes, static_cast<std::uint32_t>(row_bytes)), rows, row_bytes);
    }
  }
  SECTION("a row that repeats one 8 or more rows back (beyond the rows looked at)") {
    std::vector<unsigned char> data = table_rows(40, 64, 3);
    std::memcpy(data.data() + 20 * 64, data.data() + 2 * 64, 64);
    round_trip(data, 40, 64);
  }
}

TEST_CASE("deflate_rows: rows that repeat their neighbours compress well", "[results][row_deflate]") {
  // 1504-byte rows (the size of a one-island /all row) of which 24 bytes change: every row after the first is
  // a few literals and matches against the row before. Measured: under 4 % of the input.
  const std::vector<unsigned char> data = table_rows(174, 1504, 11);
  const std::vector<unsigned char> z = deflate_rows(data.data(), 174, 1504);
  CHECK(z.size() < data.size() / 25);
  CHECK(inflate_all(z, data.size()) == data);
}
