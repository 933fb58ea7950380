#include "results/export/deployment.hpp"

#include <cmath>

#include <fmt/format.h>

#include "model/job/evaluate.hpp"
#include "model/kernels/moe_layers.hpp"
#include "model/spec/enum_names.hpp"
#include "results/front/front_picks.hpp"

namespace shardmeter::results {

ExportError::ExportError(std::string format, std::string feature)
    : ResultsError(format + " cannot express this plan: " + feature), format_(std::move(format)),
      feature_(std::move(feature)) {}

namespace {

constexpr unsigned bit(model::RecomputeModule m) { return 1u << static_cast<unsigned>(m); }

void append_word(std::string& out, std::string_view word) {
  if (!out.empty()) out += ' ';
  out.append(word);
}

// The islands of the plan, entry by entry and copy by copy, with their rank and node ranges: one numbering over the
// whole job (synchronous), or from 0 on every island (DiLoCo: each island is a job of its own).
std::vector<DeployIsland> islands_of(const PlanRecord& r) {
  std::vector<DeployIsland> out;
  const model::ClusterSpec& cluster = r.scenario.cluster;
  std::int64_t rank = 0, node = 0;
  for (int e = 0; e < cluster.island_entries; ++e) {
    const model::IslandSpec& spec = cluster.islands[static_cast<std::size_t>(e)];
    const model::IslandEstimate& est = r.estimate.islands[static_cast<std::size_t>(e)];
    for (int k = 0; k < spec.count; ++k) {
      DeployIsland d;
      d.entry = e;
      d.copy = k;
      d.name = std::string(spec.name.view());
      d.gpu = std::string(spec.gpu.name.view());
      d.gpus = spec.gpus;
      d.nodes = spec.nodes();
      d.gpus_per_node = spec.gpus_per_node;
      d.spot = spec.spot;
      d.price_usd_per_gpu_hour = spec.price_usd_per_gpu_hour;
      d.batch_share = est.batch_share;  // islandN_batch_share is already one island's share (model/spec/estimate.hpp)
      // A pipeline across islands has no whole replica on one island.
      d.data_parallel = r.scenario.plan.pp_across_islands ? 0 : est.degrees.data_parallel;
      if (r.diloco()) {
        rank = 0;
        node = 0;
      }
      d.first_rank = rank;
      d.last_rank = rank + d.gpus - 1;
      d.first_node = node;
      rank += d.gpus;
      node += d.nodes;
      out.push_back(std::move(d));
    }
  }
  return out;
}

}  // namespace

std::int64_t Deployment::moe_layers() const { return model::moe_layer_count(model()); }

std::int64_t Deployment::train_steps() const {
  const double per_step = tokens_per_step();
  return per_step > 0 ? static_cast<std::int64_t>(std::ceil(trained_tokens / per_step)) : 0;
}

std::int64_t Deployment::warmup_steps() const {
  const double per_step = tokens_per_step();
  const double warmup = extras_known() ? training().warmup_tokens : 0;
  if (per_step <= 0 || warmup <= 0) return 0;
  return std::min(train_steps(), static_cast<std::int64_t>(std::ceil(warmup / per_step)));
}

unsigned Deployment::recompute_modules() const {
  if (!extras_known() || plan().recompute != model::Recompute::selective) return 0;
  // moe_act / moe as plan.moe_recompute says (the model reads it; a search axis may have set it).
  unsigned modules = plan().recompute_modules & ~(bit(model::RecomputeModule::moe_act) | bit(model::RecomputeModule::moe));
  switch (plan().moe_recompute) {
    case model::MoeRecompute::none: break;
    case model::MoeRecompute::activation: modules |= bit(model::RecomputeModule::moe_act); break;
    case model::MoeRecompute::layer: modules |= bit(model::RecomputeModule::moe); break;
  }
  return modules;
}

std::string Deployment::recompute_modules_text() const {
  std::string out;
  for (const auto& v : model::enum_names<model::RecomputeModule>())
    if ((recompute_modules() & bit(v.value)) != 0) append_word(out, v.name);
  return out;
}

std::string Deployment::recompute_modules_beyond_megatron_default() const {
  const unsigned modules = recompute_modules();
  if (modules == 0) return "";
  std::string beyond;
  for (const auto& v : model::enum_names<model::RecomputeModule>()) {
    if ((modules & bit(v.value)) == 0) continue;
    switch (v.value) {
      case model::RecomputeModule::core_attn:
      case model::RecomputeModule::moe_act:
      case model::RecomputeModule::moe: break;   // Megatron's default and plan.moe_recompute's modules
      case model::RecomputeModule::mlp:
      case model::RecomputeModule::layernorm:
      case model::RecomputeModule::mla_up_proj:
      case model::RecomputeModule::shared_experts: append_word(beyond, v.name); break;
    }
  }
  if ((modules & bit(model::RecomputeModule::core_attn)) == 0) append_word(beyond, "(no core_attn)");
  return beyond;
}

Deployment make_deployment(PlanRecord record) {
  record.require_complete();
  Deployment d;
  d.record = std::move(record);
  const PlanRecord& r = d.record;
  const double efficiency = r.metric(model::metric("token_efficiency"));
  const double tokens = r.scenario.training.tokens;
  d.trained_tokens = efficiency > 0 ? tokens / efficiency : tokens;
  if (d.model_parallel() <= 0 || d.degrees().data_parallel <= 0 || d.training().micro_batch <= 0)
    throw ExportError("plan", fmt::format("row {} has tp x pp x cp = {} and {} data-parallel replicas on {} GPUs",
                                          row_number(r.row), d.model_parallel(), d.degrees().data_parallel,
                                          d.total_gpus()));
  d.islands = islands_of(r);
  for (const DeployIsland& i : d.islands)
    if (i.gpu != d.islands.front().gpu || i.gpus != d.islands.front().gpus ||
        i.gpus_per_node != d.islands.front().gpus_per_node)
      d.identical_islands = false;
  d.batch_per_job = d.diloco() ? d.training().global_batch / std::max<std::int64_t>(1, std::ssize(d.islands))
                               : d.training().global_batch;
  if (r.rebuilt && r.scenario.training.fp8_params) {
    model::Scenario off = r.scenario;
    off.training.fp8_params = false;
    d.without_fp8_gathers = model::evaluate(off);
  }
  return d;
}

}  // namespace shardmeter::results
