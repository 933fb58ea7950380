#include "results/files/row_deflate.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>

#include <zlib.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#endif

namespace shardmeter::results {

namespace {

// RFC 1951 §3.2.5: lengths 3..258 as symbols 257..285 plus extra bits; distances 1..32768 as codes 0..29.
constexpr std::array<std::uint16_t, 29> kLengthBase{3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                                    31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
constexpr std::array<std::uint8_t, 29> kLengthExtra{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                                    2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
constexpr std::size_t kMaxMatch = 258;
constexpr std::size_t kMinMatch = 4;      // shorter matches (deflate allows 3) rarely beat their literals
constexpr std::size_t kWindow = 32768;
constexpr std::size_t kMaxRowsBack = 8;   // rows looked back for a match (at most kWindow / row_bytes)
constexpr int kLitLenSymbols = 286, kDistSymbols = 30, kCodeLengthSymbols = 19;
// RFC 1951 §3.2.7: the order in which the code length code's lengths are sent.
constexpr std::array<std::uint8_t, 19> kCodeLengthOrder{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};

struct LengthCode {
  std::uint16_t symbol;
  std::uint8_t extra_bits;
  std::uint16_t extra;
};
constexpr std::array<LengthCode, kMaxMatch + 1> length_codes() {
  std::array<LengthCode, kMaxMatch + 1> t{};
  for (std::size_t s = 0; s < kLengthBase.size(); ++s) {
    const std::size_t span = std::size_t{1} << kLengthExtra[s];
    for (std::size_t k = 0; k < span && kLengthBase[s] + k <= kMaxMatch; ++k)
      t[kLengthBase[s] + k] = LengthCode{static_cast<std::uint16_t>(257 + s), kLengthExtra[s], static_cast<std::uint16_t>(k)};
  }
  t[kMaxMatch] = LengthCode{285, 0, 0};   // 258 has its own symbol (227 + 31 would also be 258 under 284)
  return t;
}
constexpr std::array<LengthCode, kMaxMatch + 1> kLengthCodes = length_codes();

// Distance d (1..32768): code, extra bits, extra value.
inline LengthCode distance_code(std::uint32_t d) {
  const std::uint32_t x = d - 1;
  if (x < 4) return LengthCode{static_cast<std::uint16_t>(x), 0, 0};
  const int top = std::bit_width(x) - 1;   // >= 2
  const auto code = static_cast<std::uint16_t>(2 * top + ((x >> (top - 1)) & 1));
  const int extra_bits = top - 1;
  return LengthCode{code, static_cast<std::uint8_t>(extra_bits), static_cast<std::uint16_t>(x & ((1u << extra_bits) - 1))};
}

// Code lengths (at most `limit` bits) of a Huffman code for `freq`; symbols with zero frequency get 0. Needs at
// least two symbols with nonzero frequency, so the code is complete (inflate rejects incomplete codes). When the
// optimal code is too deep, frequencies are halved (never below 1) until it fits: all ones fit, since every
// alphabet here has at most 2^limit symbols.
void huffman_lengths(const std::uint32_t* freq_in, int n, int limit, std::uint8_t* lengths) {
  std::vector<std::uint32_t> freq(freq_in, freq_in + n);
  std::vector<int> symbols;
  for (int s = 0; s < n; ++s)
    if (freq[static_cast<std::size_t>(s)] > 0) symbols.push_back(s);
  std::fill(lengths, lengths + n, std::uint8_t{0});
  const std::size_t leaves = symbols.size();
  std::vector<std::uint64_t> weight(2 * leaves);
  std::vector<int> parent(2 * leaves);
  std::vector<std::uint64_t> keys(leaves);
  for (;;) {
    // By frequency, then symbol: one 64-bit key per symbol sorts faster than a comparison through the tables.
    for (std::size_t i = 0; i < leaves; ++i)
      keys[i] = std::uint64_t{freq[static_cast<std::size_t>(symbols[i])]} << 32 | static_cast<std::uint32_t>(symbols[i]);
    std::sort(keys.begin(), keys.end());
    for (std::size_t i = 0; i < leaves; ++i) symbols[i] = static_cast<int>(keys[i] & 0xffff'ffffu);
    for (std::size_t i = 0; i < leaves; ++i) weight[i] = freq[static_cast<std::size_t>(symbols[i])];
    // Two queues: leaves in weight order [0, leaves), internal nodes in creation order [leaves, next).
    std::size_t leaf = 0, inner = leaves, next = leaves;
    auto take = [&]() -> std::size_t {
      if (leaf < leaves && (inner >= next || weight[leaf] <= weight[inner])) return leaf++;
      return inner++;
    };
    while (next < 2 * leaves - 1) {
      const std::size_t a = take(), b = take();
      weight[next] = weight[a] + weight[b];
      parent[a] = parent[b] = static_cast<int>(next);
      ++next;
    }
    // Depths from the root (the last node) down: parents are created after their children.
    std::vector<int> depth(2 * leaves - 1, 0);
    int deepest = 0;
    for (std::size_t i = 2 * leaves - 1; i-- > 0;) {
      if (i == 2 * leaves - 2) continue;
      depth[i] = depth[static_cast<std::size_t>(parent[i])] + 1;
      if (i < leaves) deepest = std::max(deepest, depth[i]);
    }
    if (deepest <= limit) {
      for (std::size_t i = 0; i < leaves; ++i) lengths[symbols[i]] = static_cast<std::uint8_t>(depth[i]);
      return;
    }
    for (const int s : symbols) freq[static_cast<std::size_t>(s)] = std::max<std::uint32_t>(1, freq[static_cast<std::size_t>(s)] >> 1);
  }
}

// RFC 1951 §3.2.2 canonical codes, bit-reversed for deflate's least-significant-bit-first packing.
void canonical_codes(const std::uint8_t* lengths, int n, std::uint16_t* codes) {
  std::array<std::uint16_t, 16> count{}, next{};
  for (int s = 0; s < n; ++s) ++count[lengths[s]];
  count[0] = 0;
  std::uint16_t code = 0;
  for (int bits = 1; bits < 16; ++bits) {
    code = static_cast<std::uint16_t>((code + count[static_cast<std::size_t>(bits - 1)]) << 1);
    next[static_cast<std::size_t>(bits)] = code;
  }
  for (int s = 0; s < n; ++s) {
    const int len = lengths[s];
    if (len == 0) continue;
    std::uint16_t c = next[static_cast<std::size_t>(len)]++;
    std::uint16_t reversed = 0;
    for (int b = 0; b < len; ++b) {
      reversed = static_cast<std::uint16_t>((reversed << 1) | (c & 1));
      c >>= 1;
    }
    codes[s] = reversed;
  }
}

// Ensures at least two symbols have a nonzero frequency (see huffman_lengths).
void at_least_two(std::uint32_t* freq, int n) {
  int used = 0;
  for (int s = 0; s < n; ++s) used += freq[s] > 0;
  for (int s = 0; s < n && used < 2; ++s)
    if (freq[s] == 0) {
      freq[s] = 1;
      ++used;
    }
}

// Least-significant bit first into a buffer sized for the worst case beforehand (with 8 bytes to spare: flush()
// always stores a whole word). add() at most 56 bits between flushes; flush() has no branch, since whether a byte is
// complete is close to random and a mispredicted branch costs more than the store.
class BitWriter {
public:
  explicit BitWriter(unsigned char* out) : out_(out) {}
  void add(std::uint64_t value, int bits) {
    acc_ |= value << count_;
    count_ += bits;
  }
  void flush() {
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(out_, &acc_, 8);
    } else {
      for (int b = 0; b < 8; ++b) out_[b] = static_cast<unsigned char>(acc_ >> (8 * b));
    }
    const int whole = count_ & ~7;
    out_ += whole >> 3;
    acc_ = whole == 64 ? 0 : acc_ >> whole;
    count_ -= whole;
  }
  void put(std::uint64_t value, int bits) {
    add(value, bits);
    flush();
  }
  // Pads to a whole byte; returns the end of the output.
  unsigned char* finish() {
    flush();
    if (count_ > 0) *out_++ = static_cast<unsigned char>(acc_);
    acc_ = 0;
    count_ = 0;
    return out_;
  }

private:
  unsigned char* out_;
  std::uint64_t acc_ = 0;
  int count_ = 0;
};

// Adler-32 (RFC 1950 §8.2) of `n` bytes, continuing from `adler`, three ways: zlib's adler32; SSE2 (16 bytes per
// step: byte sums with psadbw, position-weighted sums with pmaddwd); AVX2 (32 bytes per step, the weighted sums
// with vpmaddubsw), chosen at run time where the CPU has it (adler32_of).
constexpr std::uint32_t kAdlerBase = 65521;
// Bytes per modulo: a multiple of 32 under zlib's NMAX (5552), so that no 32-bit sum overflows before it.
constexpr std::size_t kAdlerBlock = 5536;

std::uint32_t adler32_zlib(std::uint32_t adler, const unsigned char* p, std::size_t n) {
  for (std::size_t done = 0; done < n;) {   // adler32 takes a uInt length
    const std::size_t step = std::min<std::size_t>(n - done, std::size_t{1} << 30);
    adler = static_cast<std::uint32_t>(adler32(adler, p + done, static_cast<uInt>(step)));
    done += step;
  }
  return adler;
}

// The bytes after the vectors, and the final modulo.
inline std::uint32_t adler32_tail(std::uint32_t s1, std::uint32_t s2, const unsigned char* p, std::size_t n) {
  for (; n > 0; --n, ++p) {
    s1 += *p;
    s2 += s1;
  }
  return ((s2 % kAdlerBase) << 16) | (s1 % kAdlerBase);
}

#if defined(__SSE2__)
std::uint32_t adler32_sse2(std::uint32_t adler, const unsigned char* p, std::size_t n) {
  std::uint32_t s1 = adler & 0xffff, s2 = adler >> 16;
  const __m128i zero = _mm_setzero_si128();
  const __m128i weights_lo = _mm_setr_epi16(16, 15, 14, 13, 12, 11, 10, 9);
  const __m128i weights_hi = _mm_setr_epi16(8, 7, 6, 5, 4, 3, 2, 1);
  while (n >= 16) {
    const std::size_t len = std::min(n, kAdlerBlock) & ~std::size_t{15};
    __m128i v_s1 = zero, v_prefix = zero, v_s2 = zero;
    for (std::size_t i = 0; i < len; i += 16) {
      const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
      v_prefix = _mm_add_epi32(v_prefix, v_s1);   // byte sum of the block before this vector
      v_s1 = _mm_add_epi32(v_s1, _mm_sad_epu8(x, zero));
      v_s2 = _mm_add_epi32(v_s2, _mm_madd_epi16(_mm_unpacklo_epi8(x, zero), weights_lo));
      v_s2 = _mm_add_epi32(v_s2, _mm_madd_epi16(_mm_unpackhi_epi8(x, zero), weights_hi));
    }
    auto sum = [](__m128i v) {
      alignas(16) std::uint32_t lanes[4];
      _mm_store_si128(reinterpret_cast<__m128i*>(lanes), v);
      return std::uint64_t{lanes[0]} + lanes[1] + lanes[2] + lanes[3];
    };
    const std::uint64_t bytes = sum(v_s1), prefix = sum(v_prefix), weighted = sum(v_s2);
    s2 = static_cast<std::uint32_t>((s2 + std::uint64_t{s1} * len + 16 * prefix + weighted) % kAdlerBase);
    s1 = static_cast<std::uint32_t>((s1 + bytes) % kAdlerBase);
    p += len;
    n -= len;
  }
  return adler32_tail(s1, s2, p, n);
}
#endif

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define SHARDMETER_ADLER_AVX2 1
__attribute__((target("avx2"))) std::uint32_t adler32_avx2(std::uint32_t adler, const unsigned char* p, std::size_t n) {
  std::uint32_t s1 = adler & 0xffff, s2 = adler >> 16;
  const __m256i zero = _mm256_setzero_si256();
  const __m256i weights = _mm256_setr_epi8(32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13,
                                           12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1);
  const __m256i ones = _mm256_set1_epi16(1);
  while (n >= 32) {
    const std::size_t len = std::min(n, kAdlerBlock) & ~std::size_t{31};
    __m256i v_s1 = zero, v_prefix = zero, v_s2 = zero;
    for (std::size_t i = 0; i < len; i += 32) {
      const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
      v_prefix = _mm256_add_epi32(v_prefix, v_s1);
      v_s1 = _mm256_add_epi32(v_s1, _mm256_sad_epu8(x, zero));
      // Byte pairs times their weights (at most 255 x 63, within int16), then pairs of those summed into int32.
      v_s2 = _mm256_add_epi32(v_s2, _mm256_madd_epi16(_mm256_maddubs_epi16(x, weights), ones));
    }
    alignas(32) std::uint32_t lanes[3][8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes[0]), v_s1);
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes[1]), v_prefix);
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes[2]), v_s2);
    std::uint64_t bytes = 0, prefix = 0, weighted = 0;
    for (int l = 0; l < 8; ++l) {
      bytes += lanes[0][l];
      prefix += lanes[1][l];
      weighted += lanes[2][l];
    }
    s2 = static_cast<std::uint32_t>((s2 + std::uint64_t{s1} * len + 32 * prefix + weighted) % kAdlerBase);
    s1 = static_cast<std::uint32_t>((s1 + bytes) % kAdlerBase);
    p += len;
    n -= len;
  }
  return adler32_tail(s1, s2, p, n);
}
#endif

using AdlerFn = std::uint32_t (*)(std::uint32_t, const unsigned char*, std::size_t);
AdlerFn adler32_best() {
#if defined(SHARDMETER_ADLER_AVX2)
  if (__builtin_cpu_supports("avx2")) return adler32_avx2;
#endif
#if defined(__SSE2__)
  return adler32_sse2;
#else
  return adler32_zlib;
#endif
}

std::uint32_t adler32_of(std::uint32_t adler, const unsigned char* p, std::size_t n) {
  static const AdlerFn best = adler32_best();
  return best(adler, p, n);
}

inline std::uint32_t load32(const unsigned char* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

inline std::size_t match_length(const unsigned char* a, const unsigned char* b, std::size_t limit) {
  std::size_t n = 0;
#if defined(__SSE2__)
  // 16 bytes per step: most matches here run to deflate's longest (258 bytes, the columns neighbouring rows share).
  while (n + 16 <= limit) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + n));
    const __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + n));
    const auto equal = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, y)));
    if (equal != 0xffff) return n + static_cast<std::size_t>(std::countr_zero(~equal));
    n += 16;
  }
#endif
  while (n + 8 <= limit) {
    std::uint64_t x, y;
    std::memcpy(&x, a + n, 8);
    std::memcpy(&y, b + n, 8);
    if (x != y) {
      const std::uint64_t diff = x ^ y;
      return n + static_cast<std::size_t>(std::endian::native == std::endian::little ? std::countr_zero(diff) : std::countl_zero(diff)) / 8;
    }
    n += 8;
  }
  while (n < limit && a[n] == b[n]) ++n;
  return n;
}

// A parsed token: a match (bit 31 set, length in bits 16..24, distance - 1 in bits 0..15), or a run of literals
// (bit 31 clear: the run's length; its bytes are the input's at the position the tokens before it reach).
constexpr std::uint32_t kMatch = 0x8000'0000u;
constexpr std::size_t kMaxLiteralRun = 0x7fff'ffffu;

// The candidate distances the parse looks at from position p on: k * row_bytes for k = 1..rows (rows =
// min(rows_back, p / row_bytes), so that none reaches before the chunk) and 1.
struct Candidates {
  std::size_t rows = 0;
  std::array<std::size_t, kMaxRowsBack> distance{};
};
// Rows looked back for rows of row_bytes bytes: kMaxRowsBack, fewer where they would reach past deflate's window.
inline std::size_t rows_back_for(std::size_t row_bytes) {
  return row_bytes == 0 ? 0 : std::min(kMaxRowsBack, kWindow / row_bytes);
}
// The distances for rows of row_bytes bytes, with none in use yet (`rows` grows with the position: rows_at).
inline Candidates row_candidates(std::size_t row_bytes) {
  Candidates c;
  for (std::size_t k = 0; k < kMaxRowsBack; ++k) c.distance[k] = (k + 1) * row_bytes;
  return c;
}
// The rows back in use at position p: those that do not reach before the chunk.
inline std::size_t rows_at(std::size_t rows_back, std::size_t row_bytes, std::size_t p) {
  return row_bytes == 0 ? 0 : std::min(rows_back, p / row_bytes);
}

// Bit k - 1 (k = 1..c.rows) for k rows back, bit kMaxRowsBack for distance 1: the candidates whose first kMinMatch
// bytes equal those at `at` (at least one byte past the chunk's start). Without branches: which way each comparison
// goes is close to random, and mispredicted branches cost more than the comparisons.
inline unsigned screen(const unsigned char* at, const Candidates& c) {
  const std::uint32_t head = load32(at);
  unsigned hits = 0;
  if (c.rows == kMaxRowsBack) {
#pragma GCC unroll 16
    for (std::size_t k = 0; k < kMaxRowsBack; ++k) hits |= static_cast<unsigned>(load32(at - c.distance[k]) == head) << k;
  } else {
    for (std::size_t k = 0; k < c.rows; ++k) hits |= static_cast<unsigned>(load32(at - c.distance[k]) == head) << k;
  }
  return hits | static_cast<unsigned>(load32(at - 1) == head) << kMaxRowsBack;
}

// The first position q >= p (p >= 1) at which some candidate matches kMinMatch bytes, or n when none does before
// the last kMinMatch - 1 bytes; but at most `until`, where more rows back become candidates (the caller looks again
// from there with them). Every candidate must be valid from p on (c.rows * row_bytes <= p).
std::size_t next_match_start_scalar(const unsigned char* data, std::size_t n, std::size_t p, const Candidates& c,
                                    std::size_t until) {
  for (; p + kMinMatch <= n; ++p) {
    if (p >= until) return until;
    if (screen(data + p, c) != 0) return p;
  }
  return n;
}

#if defined(__SSE2__)
// Bits i of the result (i = 0..28): whether the kMinMatch bytes at p + i equal those at p + i - d. Reads bytes
// p - d .. p - d + 31 and p .. p + 31.
inline std::uint32_t match_starts(const unsigned char* at, __m128i a0, __m128i a1, std::size_t d) {
  const unsigned char* from = at - d;
  const auto lo = static_cast<std::uint32_t>(
      _mm_movemask_epi8(_mm_cmpeq_epi8(a0, _mm_loadu_si128(reinterpret_cast<const __m128i*>(from)))));
  const auto hi = static_cast<std::uint32_t>(
      _mm_movemask_epi8(_mm_cmpeq_epi8(a1, _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + 16)))));
  const std::uint32_t eq = lo | hi << 16;
  const std::uint32_t two = eq & eq >> 1;   // bit i: bytes i and i + 1 equal
  return two & two >> 2;
}

// next_match_start_scalar's result, 29 positions per step: each candidate's equal bytes as a 32-bit mask (two
// 16-byte SSE2 comparisons), the positions where kMinMatch equal bytes start from them at once.
std::size_t next_match_start(const unsigned char* data, std::size_t n, std::size_t p, const Candidates& c,
                             std::size_t until) {
  constexpr std::size_t kStep = 32 - kMinMatch + 1;   // positions whose kMinMatch bytes lie in the 32 compared
  while (p + 32 <= n) {
    if (p >= until) return until;
    const unsigned char* at = data + p;
    const __m128i a0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
    const __m128i a1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at + 16));
    std::uint32_t starts = match_starts(at, a0, a1, 1);
    if (c.rows == kMaxRowsBack) {
#pragma GCC unroll 16
      for (std::size_t k = 0; k < kMaxRowsBack; ++k) starts |= match_starts(at, a0, a1, c.distance[k]);
    } else {
      for (std::size_t k = 0; k < c.rows; ++k) starts |= match_starts(at, a0, a1, c.distance[k]);
    }
    starts &= (std::uint32_t{1} << kStep) - 1;
    if (starts != 0) return std::min(until, p + static_cast<std::size_t>(std::countr_zero(starts)));
    p += kStep;
  }
  return next_match_start_scalar(data, n, p, c, until);
}
#else
std::size_t next_match_start(const unsigned char* data, std::size_t n, std::size_t p, const Candidates& c,
                             std::size_t until) {
  return next_match_start_scalar(data, n, p, c, until);
}
#endif

}  // namespace

namespace detail {
// The SSE2 and the scalar search for the next match start, for the tests: both must give the same position.
std::size_t next_match_start_for_test(const unsigned char* data, std::size_t n, std::size_t p, std::size_t row_bytes,
                                      bool scalar) {
  Candidates c = row_candidates(row_bytes);
  c.rows = rows_at(rows_back_for(row_bytes), row_bytes, p);
  return scalar ? next_match_start_scalar(data, n, p, c, n) : next_match_start(data, n, p, c, n);
}

std::uint32_t adler32_for_test(std::uint32_t adler, const unsigned char* data, std::size_t n, AdlerPath path) {
  switch (path) {
    case AdlerPath::chosen: return adler32_of(adler, data, n);
    case AdlerPath::zlib: return adler32_zlib(adler, data, n);
    case AdlerPath::sse2:
#if defined(__SSE2__)
      return adler32_sse2(adler, data, n);
#else
      return adler32_zlib(adler, data, n);
#endif
    case AdlerPath::avx2:
#if defined(SHARDMETER_ADLER_AVX2)
      if (__builtin_cpu_supports("avx2")) return adler32_avx2(adler, data, n);
#endif
      return adler32_zlib(adler, data, n);
  }
  return adler32_zlib(adler, data, n);
}

bool adler32_avx2_available() {
#if defined(SHARDMETER_ADLER_AVX2)
  return __builtin_cpu_supports("avx2");
#else
  return false;
#endif
}
}  // namespace detail

std::vector<unsigned char> deflate_rows(const unsigned char* data, std::size_t row_count, std::size_t row_bytes) {
  const std::size_t n = row_count * row_bytes;
  const std::size_t rows_back = rows_back_for(row_bytes);

  // LZ77 parse, greedy: at each position the longest match among the same offset in the previous rows and a run of
  // the last byte, the previous row tried first (most bytes repeat it, often for deflate's longest match, which
  // ends the search); where nothing matches, the next position where something does is found 29 positions at a
  // time (next_match_start), the bytes before it a run of literals.
  // Scratch kept per thread between chunks: fresh buffers of this size cost page faults and zeroing per chunk.
  thread_local std::vector<std::uint32_t> tokens;
  thread_local std::vector<unsigned char> scratch;
  tokens.clear();
  std::array<std::uint32_t, kLitLenSymbols> litlen_freq{};
  std::array<std::uint32_t, kDistSymbols> dist_freq{};
  auto literals = [&](std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to; ++i) ++litlen_freq[data[i]];
    while (from < to) {
      const std::size_t run = std::min(to - from, kMaxLiteralRun);
      tokens.push_back(static_cast<std::uint32_t>(run));
      from += run;
    }
  };
  Candidates cand = row_candidates(row_bytes);
  std::size_t p = 0;
  if (n > 0) {   // the first byte has nothing before it
    literals(0, 1);
    p = 1;
  }
  while (p + kMinMatch <= n) {
    if (cand.rows < rows_back) cand.rows = rows_at(rows_back, row_bytes, p);
    const std::size_t limit = std::min(kMaxMatch, n - p);
    const unsigned char* at = data + p;
    std::size_t best = 0, best_distance = 0;
    if (cand.rows > 0) {
      best = match_length(at, at - row_bytes, limit);
      best_distance = row_bytes;
    }
    if (best < limit) {
      unsigned hits = screen(at, cand) & ~1u;   // the previous row is done
      while (hits != 0 && best < limit) {
        const int bit = std::countr_zero(hits);
        hits &= hits - 1;
        const std::size_t d = bit == static_cast<int>(kMaxRowsBack) ? 1 : cand.distance[static_cast<std::size_t>(bit)];
        const unsigned char* from = at - d;
        // Only a match that also holds at byte `best` can be longer than the best one so far.
        if (from[best] != at[best]) continue;
        const std::size_t len = kMinMatch + match_length(at + kMinMatch, from + kMinMatch, limit - kMinMatch);
        if (len > best) {
          best = len;
          best_distance = d;
        }
      }
    }
    if (best >= kMinMatch) {
      tokens.push_back(kMatch | static_cast<std::uint32_t>(best << 16) | static_cast<std::uint32_t>(best_distance - 1));
      ++litlen_freq[kLengthCodes[best].symbol];
      ++dist_freq[distance_code(static_cast<std::uint32_t>(best_distance)).symbol];
      p += best;
    } else {
      // Up to where the next row back becomes a candidate, in a chunk's first rows.
      const std::size_t until = cand.rows < rows_back ? (cand.rows + 1) * row_bytes : n;
      const std::size_t q = next_match_start(data, n, p + 1, cand, until);
      literals(p, q);
      p = q;
    }
  }
  literals(p, n);   // the last kMinMatch - 1 bytes, when no match covered them
  litlen_freq[256] = 1;   // end of block
  at_least_two(litlen_freq.data(), kLitLenSymbols);
  at_least_two(dist_freq.data(), kDistSymbols);

  std::array<std::uint8_t, kLitLenSymbols> litlen_len{};
  std::array<std::uint8_t, kDistSymbols> dist_len{};
  std::array<std::uint16_t, kLitLenSymbols> litlen_code{};
  std::array<std::uint16_t, kDistSymbols> dist_code{};
  huffman_lengths(litlen_freq.data(), kLitLenSymbols, 15, litlen_len.data());
  huffman_lengths(dist_freq.data(), kDistSymbols, 15, dist_len.data());
  canonical_codes(litlen_len.data(), kLitLenSymbols, litlen_code.data());
  canonical_codes(dist_len.data(), kDistSymbols, dist_code.data());

  int hlit = kLitLenSymbols;
  while (hlit > 257 && litlen_len[static_cast<std::size_t>(hlit - 1)] == 0) --hlit;
  int hdist = kDistSymbols;
  while (hdist > 1 && dist_len[static_cast<std::size_t>(hdist - 1)] == 0) --hdist;

  // The code lengths of both codes as one sequence, run-length coded with symbols 16, 17, 18 (§3.2.7).
  std::vector<std::uint8_t> lengths(litlen_len.begin(), litlen_len.begin() + hlit);
  lengths.insert(lengths.end(), dist_len.begin(), dist_len.begin() + hdist);
  struct Item {
    std::uint8_t symbol, extra;
  };
  std::vector<Item> items;
  std::array<std::uint32_t, kCodeLengthSymbols> cl_freq{};
  auto item = [&](int symbol, int extra) {
    items.push_back(Item{static_cast<std::uint8_t>(symbol), static_cast<std::uint8_t>(extra)});
    ++cl_freq[static_cast<std::size_t>(symbol)];
  };
  for (std::size_t i = 0; i < lengths.size();) {
    const std::uint8_t v = lengths[i];
    std::size_t run = 1;
    while (i + run < lengths.size() && lengths[i + run] == v) ++run;
    i += run;
    if (v == 0) {
      while (run >= 11) {
        const std::size_t r = std::min<std::size_t>(run, 138);
        item(18, static_cast<int>(r - 11));
        run -= r;
      }
      if (run >= 3) {
        item(17, static_cast<int>(run - 3));
        run = 0;
      }
      for (; run > 0; --run) item(0, 0);
    } else {
      item(v, 0);
      --run;
      while (run >= 3) {
        const std::size_t r = std::min<std::size_t>(run, 6);
        item(16, static_cast<int>(r - 3));
        run -= r;
      }
      for (; run > 0; --run) item(v, 0);
    }
  }
  at_least_two(cl_freq.data(), kCodeLengthSymbols);
  std::array<std::uint8_t, kCodeLengthSymbols> cl_len{};
  std::array<std::uint16_t, kCodeLengthSymbols> cl_code{};
  huffman_lengths(cl_freq.data(), kCodeLengthSymbols, 7, cl_len.data());
  canonical_codes(cl_len.data(), kCodeLengthSymbols, cl_code.data());
  int hclen = kCodeLengthSymbols;
  while (hclen > 4 && cl_len[kCodeLengthOrder[static_cast<std::size_t>(hclen - 1)]] == 0) --hclen;

  // At most 16 bits per input byte (a literal takes at most 15, a match at most 48 for 3 or more bytes), plus the
  // header (under 400 bytes: 3 + 5 + 5 + 4 + 19 * 3 bits, then at most 316 code lengths of 7 + 7 bits).
  if (scratch.size() < 2 * n + 1024) scratch.resize(2 * n + 1024);
  scratch[0] = 0x78;   // CM = 8 (deflate), CINFO = 7 (32 KiB window)
  scratch[1] = 0x01;   // FLEVEL 0, no dictionary; 0x7801 is a multiple of 31 (FCHECK)
  BitWriter bits(scratch.data() + 2);
  bits.put(1, 1);        // BFINAL
  bits.put(2, 2);        // BTYPE = 10: dynamic Huffman codes
  bits.put(static_cast<std::uint32_t>(hlit - 257), 5);
  bits.put(static_cast<std::uint32_t>(hdist - 1), 5);
  bits.put(static_cast<std::uint32_t>(hclen - 4), 4);
  for (int i = 0; i < hclen; ++i) bits.put(cl_len[kCodeLengthOrder[static_cast<std::size_t>(i)]], 3);
  for (const Item& it : items) {
    bits.put(cl_code[it.symbol], cl_len[it.symbol]);
    if (it.symbol == 16) bits.put(it.extra, 2);
    else if (it.symbol == 17) bits.put(it.extra, 3);
    else if (it.symbol == 18) bits.put(it.extra, 7);
  }
  const unsigned char* next = data;   // the input byte the next token starts at
  for (const std::uint32_t t : tokens) {
    if ((t & kMatch) == 0) {
      // Three literals per flush: at most 3 x 15 bits on top of the 7 pending, within the 64-bit word.
      const unsigned char* end = next + t;
      for (; end - next >= 3; next += 3) {
        bits.add(litlen_code[next[0]], litlen_len[next[0]]);
        bits.add(litlen_code[next[1]], litlen_len[next[1]]);
        bits.add(litlen_code[next[2]], litlen_len[next[2]]);
        bits.flush();
      }
      for (; next < end; ++next) bits.add(litlen_code[*next], litlen_len[*next]);
      bits.flush();
      continue;
    }
    const std::size_t len = (t >> 16) & 0x1ff;
    const std::uint32_t distance = (t & 0xffff) + 1;
    next += len;
    const LengthCode& l = kLengthCodes[len];
    bits.add(litlen_code[l.symbol] | (static_cast<std::uint64_t>(l.extra) << litlen_len[l.symbol]),
             litlen_len[l.symbol] + l.extra_bits);
    const LengthCode d = distance_code(distance);
    bits.put(dist_code[d.symbol] | (static_cast<std::uint64_t>(d.extra) << dist_len[d.symbol]),
             dist_len[d.symbol] + d.extra_bits);   // at most 15 + 5 + 15 + 13 bits with the 7 pending: one word
  }
  bits.put(litlen_code[256], litlen_len[256]);
  const auto size = static_cast<std::size_t>(bits.finish() - scratch.data());
  std::vector<unsigned char> out;
  out.reserve(size + 4);
  out.assign(scratch.data(), scratch.data() + size);
  const std::uint32_t adler = adler32_of(1, data, n);
  for (int b = 3; b >= 0; --b) out.push_back(static_cast<unsigned char>(adler >> (8 * b)));
  return out;
}

}  // namespace shardmeter::results
