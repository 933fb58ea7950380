#pragma once
// The activations an MLA attention (DeepSeek-V2/V3) saves for backward, counted as Megatron-Core's
// MultiLatentAttention saves them (docs/model.md §7.13). Per token, in bytes divided by the hidden size h (the sbh
// units of layer_activation_bytes), for one GPU:
//   latents   2 (2 r_q + r_kv + d_r + r_kv) / h     q_down output (q_layernorm input), q_layernorm output (q_up input),
//                                                   kv_down output (r_kv + d_r: kv_layernorm input and k_pos_emb),
//                                                   kv_layernorm output (kv_up input); not split by TP (/t under SP).
//                                                   Without query compression (r_q = 0) the query side is the block's
//                                                   norm output, counted by the block.
//   qkv       2 a (2 (d + d_r) + d_v) / (h t)       query and key (d + d_r per head), value (d_v), what core
//                                                   attention saves; 0 when recompute_modules mla_up_proj discards
//                                                   them (they are re-created from the kept latents).
//   out       2 a d_v / (h t)                       the core attention output (flash attention's output and the
//                                                   output projection's input, one tensor).
// DeepSeek-V3 (h 7168, a 128, d 128, d_r 64, d_v 128, r_q 1536, r_kv 512): latents 1.16, qkv 18.29, out 4.57.
#include "model/spec/model_spec.hpp"
#include "model/spec/plan_spec.hpp"

namespace shardmeter::model {

struct MlaSavedSbh {
  double latents = 0;        // replicated over TP (divide by t under sequence parallelism)
  double qkv = 0;            // already split by TP
  double attention_out = 0;  // already split by TP
};

// Zero for a model without MLA.
MlaSavedSbh mla_saved_sbh(const ModelSpec& model, const PlanSpec& plan) noexcept;

}  // namespace shardmeter::model
