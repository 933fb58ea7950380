#pragma once
// The transformer being trained: dimensions and architectural switches that change FLOPs, parameters or memory.
#include "model/spec/enums.hpp"
#include "model/spec/moe_spec.hpp"

namespace shardmeter::model {

struct ModelSpec {
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int kv_heads = 0;       // == heads for multi-head attention; fewer for grouped-query attention
  int head_dim = 0;       // usually hidden / heads
  int ffn_hidden = 0;     // MLP inner width f
  int vocab = 0;
  int seq_len = 0;        // tokens per sequence
  FfnType ffn_type = FfnType::gelu;
  NormType norm = NormType::layernorm;
  PositionEmbedding position_embedding = PositionEmbedding::learned;
  double yarn_factor = 0;        // YaRN rotary scaling factor (gpt-oss: 32); 0 = plain RoPE (docs/model.md §15.4)
  int attention_window = 0;      // sliding window: keys a query attends to, itself included (gpt-oss: 128); 0 = none
  int full_attention_every = 0;  // with a window, every N-th block attends fully (gpt-oss: 2); 0 = none (§2.8)
  bool bias = true;              // linear layers carry biases (GPT-2/3 style); Llama has none
  bool tied_embeddings = true;   // output head shares the input embedding matrix
  bool dropout = true;           // dropout layers present (stores masks; Korthikanti Table 2 assumes it)
  int mtp_layers = 0;            // multi-token prediction depth (DeepSeek-V3: 1), beyond `layers`
  MoeSpec moe;                   // mixture-of-experts layers (docs/model.md §15)
  MlaSpec mla;                   // multi-head latent attention (docs/model.md §15.2)
  // Numerics that cost nothing (no FLOP, byte or second depends on them) but define the model a framework trains:
  // carried for the exports and imports (docs/export.md "Model flags").
  double rope_theta = 10000;     // RoPE base θ (Su et al. 2021, RoFormer §3.4.2; Megatron --rotary-base default)
  double norm_eps = 1e-5;        // epsilon of the norm layers (Megatron --norm-epsilon, torch.nn.LayerNorm default)
};

}  // namespace shardmeter::model
