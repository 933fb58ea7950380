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

TEST_CASE("deflate_rows: rows that repeat the previous row but have no runs of one byte compress well",
          "[results][row_deflate]") {
  // Random bytes (no byte runs to match) in the first row; every later row repeats it but for 8 bytes. The
  // search for the next match in the first row must stop where the previous row becomes a candidate, or the whole
  // chunk would be literals. Measured: about 4 % of the input.
  std::mt19937 rng(21);
  const std::size_t rows = 174, row_bytes = 1504;
  std::vector<unsigned char> data(rows * row_bytes);
  for (std::size_t j = 0; j < row_bytes; ++j) data[j] = static_cast<unsigned char>(rng());
  for (std::size_t r = 1; r < rows; ++r) {
    std::memcpy(data.data() + r * row_bytes, data.data() + (r - 1) * row_bytes, row_bytes);
    for (int k = 0; k < 8; ++k) data[r * row_bytes + rng() % row_bytes] = static_cast<unsigned char>(rng());
  }
  const std::vector<unsigned char> z = deflate_rows(data.data(), rows, row_bytes);
  CHECK(z.size() < data.size() / 15);
  CHECK(inflate_all(z, data.size()) == data);
}

TEST_CASE("deflate_rows: the SSE2 search for the next match start agrees with the plain one", "[results][row_deflate]") {
  using shardmeter::results::detail::next_match_start_for_test;
  // Rows with changes placed so that match starts fall at every offset of the 29-position steps, near the end of
  // the data (where the SSE2 search hands over to the plain one) and only some rows back or as byte runs.
  std::mt19937 rng(5);
  for (const std::size_t row_bytes : {7, 64, 100, 1505}) {
    for (int trial = 0; trial < 20; ++trial) {
      INFO("row_bytes " << row_bytes << " trial " << trial);
      const std::size_t rows = 12;
      std::vector<unsigned char> data = table_rows(rows, row_bytes, static_cast<std::uint32_t>(trial));
      // Scramble stretches of random length: no match inside them, matches at their ends.
      for (int k = 0; k < 40; ++k) {
        const std::size_t at = rng() % data.size(), len = 1 + rng() % 60;
        for (std::size_t i = at; i < std::min(data.size(), at + len); ++i) data[i] = static_cast<unsigned char>(rng());
      }
      for (std::size_t p = 1; p < data.size(); p += 1 + rng() % 5) {
        const std::size_t simd = next_match_start_for_test(data.data(), data.size(), p, row_bytes, false);
        const std::size_t plain = next_match_start_for_test(data.data(), data.size(), p, row_bytes, true);
        REQUIRE(simd == plain);
      }
    }
  }
  SECTION("nothing matches: the end") {
    std::vector<unsigned char> data(500);
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<unsigned char>(i * 37 + (i >> 8));
    CHECK(next_match_start_for_test(data.data(), data.size(), 1, 100, false) == data.size());
    CHECK(next_match_start_for_test(data.data(), data.size(), 1, 100, true) == data.size());
  }
  SECTION("a run of one byte, and a repeat of the row 3 back") {
    std::vector<unsigned char> data(400);
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<unsigned char>(i * 37 + (i >> 8));
    std::fill(data.begin() + 150, data.begin() + 155, 9);   // 9 at 150..154: distance 1 from 151 on
    CHECK(next_match_start_for_test(data.data(), data.size(), 1, 40, false) == 151);
    std::memcpy(data.data() + 300 + 7, data.data() + 180 + 7, 4);   // row 7 (of 40 bytes) repeats row 4 at 7..10
    CHECK(next_match_start_for_test(data.data(), data.size(), 160, 40, false) == 307);
    CHECK(next_match_start_for_test(data.data(), data.size(), 160, 40, true) == 307);
  }
}

TEST_CASE("deflate_rows: every way of computing Adler-32 equals zlib's", "[results][row_deflate]") {
  using shardmeter::results::detail::adler32_for_test;
  using shardmeter::results::detail::AdlerPath;
  std::mt19937 rng(9);
  // Lengths around the vector widths and the 5,536-byte blocks between modulos; all-0xff bytes give the largest sums.
  std::vector<unsigned char> random(40'000), ones(40'000, 0xff);
  for (unsigned char& b : random) b = static_cast<unsigned char>(rng());
  for (const std::size_t n : {0, 1, 15, 16, 17, 31, 32, 33, 100, 1505, 5535, 5536, 5537, 11'072, 11'073, 40'000}) {
    for (const std::vector<unsigned char>* data : {&random, &ones}) {
      for (const std::uint32_t start : {1u, 0x1234'5678u % 65521u}) {
        INFO("n " << n << " start " << start);
        const auto expected = static_cast<std::uint32_t>(adler32(start, data->data(), static_cast<uInt>(n)));
        CHECK(adler32_for_test(start, data->data(), n, AdlerPath::zlib) == expected);
        CHECK(adler32_for_test(start, data->data(), n, AdlerPath::sse2) == expected);
        CHECK(adler32_for_test(start, data->data(), n, AdlerPath::avx2) == expected);
        CHECK(adler32_for_test(start, data->data(), n, AdlerPath::chosen) == expected);
      }
    }
  }
  // The AVX2 path is only tested where the CPU has AVX2 (else it is zlib's, tested above); say which.
  WARN("AVX2 Adler-32 " << (shardmeter::results::detail::adler32_avx2_available() ? "tested" : "not available on this CPU"));
}
