#pragma once
// Peak memory per GPU, itemised.
#include "model/estimate.hpp"
#include "model/layout.hpp"
#include "model/parameters.hpp"
#include "model/scenario.hpp"
#include "model/state_bytes.hpp"

namespace shardmeter::model {

// Activation bytes one transformer block stores for one micro-batch on one GPU, generalising
// Korthikanti et al. 2022 Table 2 to GQA, SwiGLU, no-dropout, FlashAttention and context parallelism.
// With the GPT-3 block (MHA, 4h GELU, dropout, standard attention) it reproduces the table exactly:
//   sbh(34 + 5as/h) without parallelism; sbh(10 + 24/t + 5as/(ht)) with TP; 34sbh/t with TP+SP+selective.
double layer_activation_bytes(const ModelSpec& model, const PlanSpec& plan, int micro_batch) noexcept;

// Where the micro-batch's stage lives in the pipeline decides what it holds: the first stage keeps the
// most micro-batches in flight and the embedding, the last keeps the output head and the logits; `middle` is rank 1,
// the middle rank with the most blocks and the most in flight (with pp >= 3; docs/model.md §5.4).
enum class StagePosition { first, middle, last, only };

MemoryBreakdown stage_memory(const Scenario& scenario, const IslandLayout& layout,
                             const ParameterCounts& params, int microbatches, StagePosition position) noexcept;

// A lower bound of some GPU's peak memory that needs no step model: the model states (weights, gradients, optimizer
// and DiLoCo outer state after ZeRO sharding) of the fullest stage plus the runtime overhead, activations left
// out. When it exceeds the usable memory of any island, model::evaluate reports out_of_memory too, so the search
// rejects such candidates before the full estimate. Call on a consistent scenario.
bool model_states_exceed_memory(const Scenario& scenario) noexcept;

// Memory the tensors may use: HBM minus the fragmentation reserve (docs/model.md §7.8).
double usable_memory_bytes(const GpuSpec& gpu, const RuntimeSpec& runtime) noexcept;

}  // namespace shardmeter::model
