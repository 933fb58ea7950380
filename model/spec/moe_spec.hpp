#pragma once
// Mixture-of-experts layers and multi-head latent attention: the architectural keys that change parameters, FLOPs,
// step time and memory of an MoE model (docs/model.md §15). Both structs are members of ModelSpec; with their
// defaults (no experts, no latent ranks) the model is the dense transformer of the rest of model/.
#include "model/spec/enums.hpp"

namespace shardmeter::model {

struct MoeSpec {
  int experts = 0;                   // routed experts E per MoE layer; 0 = every MLP is dense
  int top_k = 2;                     // routed experts each token goes to (k)
  int shared_experts = 0;            // experts every token goes to (DeepSeek: 1)
  int expert_ffn_hidden = 0;         // inner width of one expert (scenario default: model.ffn_hidden)
  int shared_expert_ffn_hidden = 0;  // inner width of one shared expert (scenario default: expert_ffn_hidden)
  int dense_layers = 0;              // the first layers keep a dense MLP (DeepSeek-V3: 3)
  int moe_every = 1;                 // after them, every n-th layer is an MoE layer (1 = all of them)
  MoeRouter router = MoeRouter::softmax;
  double capacity_factor = 0;        // tokens an expert accepts, in multiples of its fair share; 0 = dropless
  double load_imbalance = 1.0;       // expected busiest / mean routed tokens per expert-parallel rank (1 = balanced)
  double activation_clamp = 0;       // the experts' gated activation clamps its inputs to this limit (gpt-oss: 7); 0 = none
};

// Multi-head latent attention (DeepSeek-V2/V3): keys and values are rebuilt per head from a low-rank latent.
// kv_lora_rank = 0 means ordinary multi-head / grouped-query attention. With MLA, ModelSpec::head_dim is the part
// of each query/key head without rotary position (DeepSeek's qk_nope_head_dim).
struct MlaSpec {
  int q_lora_rank = 0;       // query compression rank (0 = queries projected straight from h)
  int kv_lora_rank = 0;      // key/value latent rank; > 0 selects MLA
  int rope_head_dim = 0;     // rotary part of each query/key head (decoupled RoPE)
  int v_head_dim = 0;        // value head dimension (scenario default: head_dim)
};

}  // namespace shardmeter::model
