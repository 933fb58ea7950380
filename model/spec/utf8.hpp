#pragma once
// UTF-8 validity, shared by the input checks (src/scenario/input_limits.hpp) and the escaping of outputs
// (results/markup.hpp). Pure and allocation-free.
#include <cstddef>
#include <string_view>

namespace shardmeter::model {

// Length of the UTF-8 sequence starting at text[i] (1 to 4), or 0 when it is not a valid one (overlong forms,
// surrogates and code points above U+10FFFF included).
constexpr std::size_t utf8_sequence_length(std::string_view text, std::size_t i) noexcept {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return 1;
  std::size_t n = 0;
  unsigned min = 0, code = 0;
  if ((c & 0xE0) == 0xC0) {
    n = 2, min = 0x80, code = c & 0x1Fu;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3, min = 0x800, code = c & 0x0Fu;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4, min = 0x10000, code = c & 0x07u;
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    code = (code << 6) | (byte(i + k) & 0x3Fu);
  }
  if (code < min || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
  return n;
}

}  // namespace shardmeter::model
