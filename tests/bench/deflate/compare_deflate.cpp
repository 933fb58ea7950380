// The /all chunk encoders side by side (issue 32, "libraries over hand-written code"; docs/performance.md,
// "DEFLATE: row_deflate against libdeflate and HDF5's shuffle + deflate"). Not part of the build: it needs
// libdeflate-dev, which the tool itself does not use. Build and run (ROWS: the raw /all rows of a `search --all`
// file, e.g. dumped by tests/bench/deflate/dump_all_rows.py):
//   g++ -O3 -std=c++20 -I. tests/bench/deflate/compare_deflate.cpp results/files/row_deflate.cpp -ldeflate -lz \
//       -o /tmp/compare_deflate && /tmp/compare_deflate ROWS ROW_BYTES [REPEATS]
// Each encoder deflates every 256 KiB chunk of the rows (the chunk size hdf5_writer.cpp uses) REPEATS times; the
// figures are thread-CPU seconds (CLOCK_THREAD_CPUTIME_ID, so other work on a shared machine does not count) and the
// compressed size. Every output is inflated again with zlib and compared with the input.
#include <time.h>
#include <zlib.h>
#include <libdeflate.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "results/files/row_deflate.hpp"

namespace {

double thread_cpu_s() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// HDF5's shuffle filter (H5Zshuffle.c) on a compound type of `row_bytes`: byte k of every row, then byte k + 1 ...
void shuffle(const unsigned char* in, std::size_t rows, std::size_t row_bytes, std::vector<unsigned char>& out) {
  out.resize(rows * row_bytes);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t k = 0; k < row_bytes; ++k) out[k * rows + r] = in[r * row_bytes + k];
}

std::vector<unsigned char> zlib_level(const unsigned char* in, std::size_t n, int level) {
  uLongf size = compressBound(static_cast<uLong>(n));
  std::vector<unsigned char> out(size);
  if (compress2(out.data(), &size, in, static_cast<uLong>(n), level) != Z_OK) std::abort();
  out.resize(size);
  return out;
}

std::vector<unsigned char> libdeflate_level(libdeflate_compressor* c, const unsigned char* in, std::size_t n) {
  std::vector<unsigned char> out(libdeflate_zlib_compress_bound(c, n));
  const std::size_t size = libdeflate_zlib_compress(c, in, n, out.data(), out.size());
  if (size == 0) std::abort();
  out.resize(size);
  return out;
}

bool inflates_to(const std::vector<unsigned char>& z, const unsigned char* want, std::size_t n) {
  std::vector<unsigned char> back(n);
  uLongf size = static_cast<uLongf>(n);
  return uncompress(back.data(), &size, z.data(), static_cast<uLong>(z.size())) == Z_OK && size == n &&
         std::memcmp(back.data(), want, n) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: compare_deflate ROWS_FILE ROW_BYTES [REPEATS]\n");
    return 2;
  }
  std::ifstream f(argv[1], std::ios::binary);
  const std::vector<unsigned char> data((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const std::size_t row_bytes = std::strtoul(argv[2], nullptr, 10);
  const int repeats = argc > 3 ? std::atoi(argv[3]) : 5;
  const std::size_t chunk_rows = std::max<std::size_t>(16, 256 * 1024 / row_bytes);
  const std::size_t rows = data.size() / row_bytes;
  libdeflate_compressor* l1 = libdeflate_alloc_compressor(1);
  libdeflate_compressor* l6 = libdeflate_alloc_compressor(6);
  std::vector<unsigned char> shuffled;
  struct Encoder {
    const char* name;
    std::function<std::vector<unsigned char>(const unsigned char*, std::size_t)> run;
    bool shuffles;
  };
  const std::vector<Encoder> encoders = {
      {"row_deflate (ours)", [&](const unsigned char* p, std::size_t n) { return shardmeter::results::deflate_rows(p, n, row_bytes); }, false},
      {"libdeflate level 1", [&](const unsigned char* p, std::size_t n) { return libdeflate_level(l1, p, n * row_bytes); }, false},
      {"libdeflate level 6", [&](const unsigned char* p, std::size_t n) { return libdeflate_level(l6, p, n * row_bytes); }, false},
      {"zlib level 1", [&](const unsigned char* p, std::size_t n) { return zlib_level(p, n * row_bytes, 1); }, false},
      {"shuffle + zlib level 1 (HDF5 filters)", [&](const unsigned char* p, std::size_t n) { shuffle(p, n, row_bytes, shuffled); return zlib_level(shuffled.data(), n * row_bytes, 1); }, true},
      {"shuffle + libdeflate level 1", [&](const unsigned char* p, std::size_t n) { shuffle(p, n, row_bytes, shuffled); return libdeflate_level(l1, shuffled.data(), n * row_bytes); }, true},
  };
  std::printf("%zu rows of %zu bytes (%.1f MB), chunks of %zu rows, %d repeats\n", rows, row_bytes,
              static_cast<double>(rows * row_bytes) / 1e6, chunk_rows, repeats);
  for (const Encoder& e : encoders) {
    std::size_t out_bytes = 0;
    bool ok = true;
    double best = 1e300;
    for (int r = 0; r < repeats; ++r) {
      const double t0 = thread_cpu_s();
      std::size_t bytes = 0;
      for (std::size_t first = 0; first < rows; first += chunk_rows) {
        const std::size_t n = std::min(chunk_rows, rows - first);
        const std::vector<unsigned char> z = e.run(data.data() + first * row_bytes, n);
        bytes += z.size();
        if (r == 0) ok = ok && inflates_to(z, e.shuffles ? shuffled.data() : data.data() + first * row_bytes, n * row_bytes);
      }
      best = std::min(best, thread_cpu_s() - t0);
      out_bytes = bytes;
    }
    std::printf("%-40s %8.3f thread-CPU s (best of %d)  %7.1f MB/s  %10zu bytes out (%.2f%% of input)%s\n", e.name, best,
                repeats, static_cast<double>(rows * row_bytes) / best / 1e6, out_bytes,
                100.0 * static_cast<double>(out_bytes) / static_cast<double>(rows * row_bytes), ok ? "" : "  ROUND TRIP FAILED");
  }
  libdeflate_free_compressor(l1);
  libdeflate_free_compressor(l6);
  return 0;
}
