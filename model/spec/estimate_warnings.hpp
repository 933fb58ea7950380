#pragma once
// Warnings an estimate carries when it rests on a model used outside the data it was fitted to, or on a kind of
// plan whose published runs the model misses by more than its stated accuracy (MoE, docs/model.md §15.8). A bit set in
// Estimate::warnings (no strings in the evaluation path); the names and texts below are what JSON and tables print.
#include <array>
#include <cstdint>
#include <string_view>

namespace shardmeter::model {

enum class Warning : std::uint32_t {
  diloco_replicas_beyond_data = 1u << 0,    // DiLoCo token efficiency: more than 8 replicas (docs/model.md §9.4)
  diloco_size_beyond_data = 1u << 1,        // model size outside 35M-10B parameters
  diloco_inner_steps_beyond_data = 1u << 2, // H above 300 inner steps
  diloco_overlap_beyond_data = 1u << 3,     // overlap tau beyond two outer steps
  diloco_tokens_beyond_data = 1u << 4,      // more than 250 tokens per parameter (overtraining damping)
  diloco_fragments_beyond_data = 1u << 5,   // Streaming fragments of fewer than 3 layers
  moe_many_local_experts = 1u << 6,         // 16+ routed experts per GPU on Megatron-Core (docs/model.md §15.8)
  moe_unfused_expert_path = 1u << 7,        // clamped/biased experts on Megatron-Core's unfused path (§15.8)
  moe_fp8 = 1u << 8,                        // fp8 MoE training on Megatron-Core (§15.8)
  batch_beyond_data = 1u << 9,              // batch penalty beyond the critical-batch data (docs/model.md §9.7)
  fp8_casts_outweigh_gemm_savings = 1u << 10, // fp8 slower than bf16: the cast kernels cost more than the GEMMs save
  fp8_hides_less_communication = 1u << 11,   // fp8 slower than bf16: shorter GEMMs hide less overlapped comm (§2.2)
  network_profile_extrapolated = 1u << 12,  // a group spans node counts its island's network profile never measured
};

constexpr std::uint32_t bit(Warning w) noexcept { return static_cast<std::uint32_t>(w); }

struct WarningText {
  Warning warning;
  std::string_view name;   // as JSON writes it
  std::string_view text;   // one sentence, as the tables print it
};

// clang-format off
inline constexpr std::array kWarningTexts = {
  WarningText{Warning::diloco_replicas_beyond_data, "diloco_replicas_beyond_data",
              "DiLoCo token efficiency extrapolated beyond 8 replicas (iso-token data: M <= 8)"},
  WarningText{Warning::diloco_size_beyond_data, "diloco_size_beyond_data",
              "DiLoCo token efficiency extrapolated outside 35M-10.5B parameters"},
  WarningText{Warning::diloco_inner_steps_beyond_data, "diloco_inner_steps_beyond_data",
              "DiLoCo token efficiency extrapolated beyond H = 300 inner steps"},
  WarningText{Warning::diloco_overlap_beyond_data, "diloco_overlap_beyond_data",
              "Streaming DiLoCo overlap beyond two outer steps: no published quality data"},
  WarningText{Warning::diloco_tokens_beyond_data, "diloco_tokens_beyond_data",
              "DiLoCo token efficiency extrapolated beyond 250 training tokens per parameter"},
  WarningText{Warning::diloco_fragments_beyond_data, "diloco_fragments_beyond_data",
              "Streaming DiLoCo fragments of fewer than 3 layers: no published quality data (assumed free)"},
  WarningText{Warning::moe_many_local_experts, "moe_many_local_experts",
              "16 or more routed experts per GPU on Megatron-Core: 4 of the 5 such published runs were "
              "predicted 12-32 % shorter than measured (host cost per expert GEMM not modelled; docs/accuracy.md)"},
  WarningText{Warning::moe_unfused_expert_path, "moe_unfused_expert_path",
              "clamped or biased experts (gpt-oss) on Megatron-Core's unfused expert path: the 5 published runs "
              "were predicted 7-28 % shorter than measured (docs/accuracy.md)"},
  WarningText{Warning::moe_fp8, "moe_fp8",
              "fp8 mixture-of-experts training on Megatron-Core: of the 2 published runs, 1 was predicted 19 % "
              "shorter and 1 was predicted 2 % longer than measured (docs/accuracy.md)"},
  WarningText{Warning::batch_beyond_data, "batch_beyond_data",
              "batch token efficiency extrapolated: a batch above the optimal batch at more than 1.5B parameters or "
              "3e20 FLOPs, beyond the critical-batch data (docs/model.md §9.7)"},
  WarningText{Warning::fp8_casts_outweigh_gemm_savings, "fp8_casts_outweigh_gemm_savings",
              "fp8 is slower than bf16 here: the fp8 cast kernels (memory-bound) cost more per micro-batch than the "
              "fp8 GEMMs save on this plan's small GEMMs (docs/model.md §2.2)"},
  WarningText{Warning::fp8_hides_less_communication, "fp8_hides_less_communication",
              "fp8 is slower than bf16 here: its shorter GEMMs hide less of the overlapped data-parallel, FSDP or "
              "TP communication, which costs more than the GEMMs and casts save (docs/model.md §2.2)"},
  WarningText{Warning::network_profile_extrapolated, "network_profile_extrapolated",
              "a collective spans more (or fewer) nodes than the island's network profile measured: its bandwidth "
              "is extrapolated from the nearest runs (docs/network.md)"},
};
// clang-format on

}  // namespace shardmeter::model
