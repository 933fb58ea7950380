#pragma once
// Peak memory per GPU, itemised.
#include "model/spec/estimate.hpp"
#include "model/parallel/fp8.hpp"
#include "model/parallel/layout.hpp"
#include "model/kernels/parameters.hpp"
#include "model/parallel/pipeline_stages.hpp"
#include "model/spec/scenario.hpp"
#include "model/memory/state_bytes.hpp"

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

// The parts of stage_memory() that are the same on every pipeline rank and island of a scenario: bytes per
// parameter, the fp8 use, one block's activations under the plan (and kept whole), the recompute working set, the
// logits. The island step computes them once and sizes its first, middle and last rank from them; the values are
// those stage_memory() computes itself, so both give identical results.
struct StageMemoryTerms {
  StageLayers stages;
  Fp8Use fp8;
  double optimizer_bytes_per_param = 0;
  double gradient_bytes_per_param = 0;
  double fp8_weight_extra_bytes_per_param = 0;                 // TE's fp8 weight copies on a GPU that needs
  double fp8_weight_extra_bytes_per_param_transpose_free = 0;  // transposes (Hopper), on one that does not (§7.14)
  double fp8_block_weight_params = 0;      // set when the fp8 weight copies or fp8 FSDP gathers need it
  double per_layer_bytes = 0;              // layer_activation_bytes under the plan
  double per_kept_layer_bytes = 0;         // ... under no recompute (partial full recompute, op_selective)
  double recompute_working_set_bytes = 0;  // the block being recomputed (full, op_selective)
  double moe_extra_bytes = 0;              // moe_extra_activation_bytes
  double fp8_saved_delta_bytes = 0;        // fp8_saved_activation_delta_bytes of the blocks kept whole
  double logits_bytes = 0;                 // on the stage that holds the head
};
StageMemoryTerms stage_memory_terms(const Scenario& scenario) noexcept;
// The same from the scenario's stage_layers() and fp8_use(precision, stack, fp8_params, fp8_recipe), when the caller
// has them.
StageMemoryTerms stage_memory_terms(const Scenario& scenario, const StageLayers& stages, const Fp8Use& fp8) noexcept;
MemoryBreakdown stage_memory(const Scenario& scenario, const IslandLayout& layout, const ParameterCounts& params,
                             const StageMemoryTerms& terms, int microbatches, StagePosition position) noexcept;

// A lower bound of some GPU's peak memory that needs no step model: the model states (weights, gradients, optimizer
// and DiLoCo outer state after ZeRO sharding) of the fullest stage plus the runtime overhead, activations left
// out. When it exceeds the usable memory of any island, model::evaluate reports out_of_memory too, so the search
// rejects such candidates before the full estimate. Call on a consistent scenario.
bool model_states_exceed_memory(const Scenario& scenario) noexcept;
// The same with `params` == count_parameters(scenario.model) already at hand (the search counts them once).
bool model_states_exceed_memory(const Scenario& scenario, const ParameterCounts& params) noexcept;

// The caching allocator's reserve beside a GPU's peak (docs/model.md §7.8): runtime.fragmentation_fraction of the
// allocations that come and go within a step (activations, logits, FSDP / ZeRO-3 gather buffers). The model states
// live in buffers allocated once (Megatron's contiguous param/grad buffers, FSDP's flat parameters, DeepSpeed's flat
// partitions) and leave no holes.
double allocator_reserve_bytes(const MemoryBreakdown& peak, const RuntimeSpec& runtime) noexcept;

// Memory the tensors of the GPU whose peak is `peak` may use: HBM minus that peak's allocator reserve (§7.8).
double usable_memory_bytes(const GpuSpec& gpu, const RuntimeSpec& runtime, const MemoryBreakdown& peak) noexcept;

}  // namespace shardmeter::model
