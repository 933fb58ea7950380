#pragma once
// A tiny MLA / MoE model whose activations are checkable by hand (docs/model.md §7.11, §7.12, §7.13), and the
// recompute-module bit set of a list of modules.
#include <initializer_list>

#include "model/spec/model_spec.hpp"
#include "model/spec/plan_spec.hpp"

namespace shardmeter::test {

inline unsigned recompute_bits(std::initializer_list<model::RecomputeModule> modules) {
  unsigned b = 0;
  for (const model::RecomputeModule x : modules) b |= 1u << static_cast<unsigned>(x);
  return b;
}

// h 8, 2 heads of 4, SwiGLU, 4 blocks: the first dense (ffn 16), three MoE blocks with 4 routed experts of width 6,
// top-2, one shared expert of width 6; MLA with latents r_q 5, r_kv 6, rope 2, value heads 3.
inline model::ModelSpec tiny_moe_mla() {
  using namespace shardmeter::model;
  ModelSpec s;
  s.layers = 4; s.hidden = 8; s.heads = 2; s.kv_heads = 2; s.head_dim = 4; s.ffn_hidden = 16;
  s.vocab = 10; s.seq_len = 16;
  s.ffn_type = FfnType::swiglu; s.norm = NormType::rmsnorm; s.position_embedding = PositionEmbedding::rope;
  s.bias = false; s.tied_embeddings = false; s.dropout = false;
  s.moe.experts = 4; s.moe.top_k = 2; s.moe.shared_experts = 1;
  s.moe.expert_ffn_hidden = 6; s.moe.shared_expert_ffn_hidden = 6; s.moe.dense_layers = 1;
  s.mla.q_lora_rank = 5; s.mla.kv_lora_rank = 6; s.mla.rope_head_dim = 2; s.mla.v_head_dim = 3;
  return s;
}

}  // namespace shardmeter::test
