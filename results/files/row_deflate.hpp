#pragma once
// A fast deflate encoder for one /all chunk: rows of a fixed size, most of whose bytes repeat the rows just before
// them (the constant columns, and values neighbouring candidates share). The output is a plain zlib stream
// (RFC 1950 around one RFC 1951 block with dynamic Huffman codes), so HDF5's deflate filter, h5py and any inflate
// read it; only the way matches are found is specialised (results/README.md, "Cost of --all").
//
// Matches are looked for only where a row's bytes can repeat: at the same offset in one of the previous rows
// (distances row_bytes, 2 * row_bytes, ... within deflate's 32 KiB window) and as runs of one byte (distance 1).
// That takes a few comparisons per byte instead of a general match finder's hash chains, which bounded
// `search --all` (zlib's deflate was half its CPU time, docs/performance.md). The previous row is tried first
// (most bytes repeat it); where nothing matches, the next position where a candidate does is found 29 positions
// at a time with SSE2 comparisons (a plain loop without SSE2), and the bytes before it are one run of literals.
// The Adler-32 uses AVX2 where the CPU has it (chosen at run time), else SSE2.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace shardmeter::results {

// `row_count` rows of `row_bytes` bytes each at `data`, as a zlib stream. Never fails (an empty input gives a
// valid empty stream).
std::vector<unsigned char> deflate_rows(const unsigned char* data, std::size_t row_count, std::size_t row_bytes);

namespace detail {
// For the tests: the first position q >= p (p >= 1) at which the `n` bytes at `data` (rows of `row_bytes`) hold
// at least 4 bytes equal to those 1, row_bytes, 2 * row_bytes, ... bytes before (as many rows as the encoder looks
// back that lie at or after the start), or n; by the SSE2 search the encoder uses, or by the plain one
// (`scalar`), which must agree.
std::size_t next_match_start_for_test(const unsigned char* data, std::size_t n, std::size_t p, std::size_t row_bytes,
                                      bool scalar);
// Adler-32 (zlib's adler32) by each of the encoder's ways of computing it: the one the encoder chose for this CPU,
// zlib's, SSE2 (zlib's where the build has no SSE2), AVX2 (zlib's where the CPU has no AVX2).
enum class AdlerPath { chosen, zlib, sse2, avx2 };
std::uint32_t adler32_for_test(std::uint32_t adler, const unsigned char* data, std::size_t n, AdlerPath path);
bool adler32_avx2_available();
}  // namespace detail

}  // namespace shardmeter::results
