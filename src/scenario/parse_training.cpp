// training:, runtime: and goodput: — small sections of plain values.
#include "src/scenario/parse_training.hpp"

#include "model/units.hpp"
#include "src/scenario/scenario_schema.hpp"

namespace shardmeter::cli {

namespace m = shardmeter::model;

void parse_training(const YamlField& field, m::TrainingSpec& out) {
  const auto keys = key_names({Section::training});
  const YamlMap training(field, keys);
  if (!training.read("global_batch", out.global_batch, Range::between(1, 1e12)))
    throw training.missing("global_batch", "is required (sequences per optimizer step)");
  training.read("micro_batch", out.micro_batch, Range::between(1, 1e6));
  training.read("tokens", out.tokens, Range::at_least(0));
  training.read_enum("precision", out.precision);
  training.read_enum("optimizer", out.optimizer);
  GradReduceDtype dtype = GradReduceDtype::bf16;
  training.read_enum("grad_reduce_dtype", dtype);
  out.grad_reduce_bytes = grad_reduce_bytes(dtype);
}

void parse_runtime(const YamlField& field, m::RuntimeSpec& out) {
  const auto keys = key_names({Section::runtime});
  const YamlMap runtime(field, keys);
  runtime.read("fragmentation_fraction", out.fragmentation_fraction, Range::between(0, 0.5));
  double overhead_gb = 0;
  if (runtime.read("runtime_overhead_gb", overhead_gb, Range::at_least(0)))
    out.runtime_overhead_bytes = overhead_gb * m::kGB;
}

void parse_goodput(const YamlField& field, const m::ClusterSpec& cluster, m::GoodputSpec& out) {
  const auto keys = key_names({Section::goodput});
  const YamlMap goodput(field, keys);
  goodput.read("enabled", out.enabled);
  goodput.read("failures_per_gpu_hour", out.failures_per_gpu_hour, Range::at_least(0));
  double per_node_day = 0;
  if (goodput.read("failures_per_node_day", per_node_day, Range::at_least(0))) {
    if (goodput.has("failures_per_gpu_hour"))
      throw goodput["failures_per_node_day"].error("cannot be combined with goodput.failures_per_gpu_hour; give one");
    // Rates are stored per GPU-hour. A node-day rate is spread over the node's GPUs and 24 hours; the node
    // size is the first island's (a scenario mixing node sizes should give failures_per_gpu_hour instead).
    const int gpus_per_node = cluster.island_entries > 0 ? cluster.islands[0].gpus_per_node : 8;
    out.failures_per_gpu_hour = per_node_day / (24.0 * gpus_per_node);
  }
  goodput.read("checkpoint_write_s", out.checkpoint_write_s, Range::at_least(0));
  goodput.read("restart_s", out.restart_s, Range::at_least(0));
}

}  // namespace shardmeter::cli
