#pragma once
// Sliding-window attention (docs/model.md §2.8): which blocks attend within a window, and the share of full causal
// attention a windowed block costs, in exact FLOPs (model FLOPs) and in the kernel's tiles (its time).
#include <algorithm>
#include <cmath>

#include "model/spec/model_spec.hpp"

namespace shardmeter::model {

// Key tile the fused flash kernels step through: FlashAttention-2 and -3 choose 64 or 128 at head dims up to 128;
// 128 for cuDNN is assumed (docs/model.md §2.8).
inline constexpr double kAttentionTile = 128;

// Blocks that attend within the window: Megatron-Core's is_layer_window_attention (transformer/utils.py): with
// window_attn_skip_freq N every N-th block (1-indexed) attends fully, the others within the window.
inline int windowed_layer_count(const ModelSpec& m) noexcept {
  if (m.attention_window <= 0) return 0;
  return m.full_attention_every > 0 ? m.layers - m.layers / m.full_attention_every : m.layers;
}

// Query-key pairs of a causal window of w keys (the query included) over s positions, against the s^2/2 of full
// causal attention: (w s - w (w - 1) / 2) / (s^2 / 2); 1 once the window covers the sequence.
inline double window_flop_fraction(double window, double seq) noexcept {
  if (window <= 0 || window >= seq) return 1.0;
  return std::min(1.0, (window * seq - 0.5 * window * (window - 1.0)) / (0.5 * seq * seq));
}

// The same in the kernel's tiles: each query tile reads the key tiles its window reaches, ceil((w - 1)/B) + 1,
// against i + 1 for the i-th tile under the causal mask. Never below the FLOP fraction.
inline double window_time_fraction(double window, double seq) noexcept {
  if (window <= 0 || window >= seq) return 1.0;
  const double n = std::ceil(seq / kAttentionTile);
  const double c = std::ceil((window - 1.0) / kAttentionTile) + 1.0;
  if (c >= n) return 1.0;
  const double tiles = 0.5 * c * (c + 1.0) + (n - c) * c;
  return std::max(window_flop_fraction(window, seq), tiles / (0.5 * n * (n + 1.0)));
}

// Averages over the model's blocks (windowed and full), as the per-block cost terms use them.
inline double attention_flop_share(const ModelSpec& m) noexcept {
  const int w = windowed_layer_count(m);
  if (w == 0 || m.layers <= 0) return 1.0;
  return (m.layers - w + w * window_flop_fraction(m.attention_window, m.seq_len)) / m.layers;
}
inline double attention_time_share(const ModelSpec& m) noexcept {
  const int w = windowed_layer_count(m);
  if (w == 0 || m.layers <= 0) return 1.0;
  return (m.layers - w + w * window_time_fraction(m.attention_window, m.seq_len)) / m.layers;
}

}  // namespace shardmeter::model
