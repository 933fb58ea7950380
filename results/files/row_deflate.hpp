#pragma once
// A fast deflate encoder for one /all chunk: rows of a fixed size, most of whose bytes repeat the rows just before
// them (the constant columns, and values neighbouring candidates share). The output is a plain zlib stream
// (RFC 1950 around one RFC 1951 block with dynamic Huffman codes), so HDF5's deflate filter, h5py and any inflate
// read it; only the way matches are found is specialised (results/README.md, "Cost of --all").
//
// Matches are looked for only where a row's bytes can repeat: at the same offset in one of the previous rows
// (distances row_bytes, 2 * row_bytes, ... within deflate's 32 KiB window) and as runs of one byte (distance 1).
// That takes a few comparisons per byte instead of a general match finder's hash chains, which bounded
// `search --all` (zlib's deflate was half its CPU time, docs/performance.md).
#include <cstddef>
#include <vector>

namespace shardmeter::results {

// `row_count` rows of `row_bytes` bytes each at `data`, as a zlib stream. Never fails (an empty input gives a
// valid empty stream).
std::vector<unsigned char> deflate_rows(const unsigned char* data, std::size_t row_count, std::size_t row_bytes);

}  // namespace shardmeter::results
