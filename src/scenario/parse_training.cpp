// training:, runtime: and goodput: — small sections of plain values, read through the key table.
#include "src/scenario/parse_training.hpp"

#include "src/scenario/key_reader.hpp"

namespace shardmeter::cli {

namespace m = shardmeter::model;

void parse_training(const YamlField& field, m::TrainingSpec& out, const KeyTable& keys) {
  const YamlMap training = section_map(keys, field, {Section::training});
  apply_defaults(keys, Section::training, out);
  check_required(keys, Section::training, training);
  read_keys(keys, Section::training, training, out);
  if (training.has("optimizer_state_dtype") && out.optimizer == m::Optimizer::adamw_8bit &&
      out.optimizer_state_dtype != m::StateDtype::fp32)
    throw training["optimizer_state_dtype"].error(
        "cannot be combined with training.optimizer: adamw_8bit, whose states are 8-bit (docs/model.md §7.2)");
}

void parse_runtime(const YamlField& field, m::RuntimeSpec& out, const KeyTable& keys) {
  const YamlMap runtime = section_map(keys, field, {Section::runtime});
  apply_defaults(keys, Section::runtime, out);
  read_keys(keys, Section::runtime, runtime, out);
}

void parse_goodput(const YamlField& field, const m::ClusterSpec& cluster, m::GoodputSpec& out, const KeyTable& keys) {
  const YamlMap goodput = section_map(keys, field, {Section::goodput});
  apply_defaults(keys, Section::goodput, out);
  read_keys(keys, Section::goodput, goodput, out);
  constexpr std::string_view kPerNodeDay = "failures_per_node_day";
  if (goodput.has(kPerNodeDay)) {
    const double per_node_day = goodput[kPerNodeDay].as_double(keys.key(Section::goodput, kPerNodeDay).bounds);
    if (goodput.has("failures_per_gpu_hour"))
      throw goodput[kPerNodeDay].error("cannot be combined with goodput.failures_per_gpu_hour; give one");
    // Rates are stored per GPU-hour. A node-day rate is spread over the node's GPUs and 24 hours; the node
    // size is the first island's (a scenario mixing node sizes should give failures_per_gpu_hour instead).
    const int gpus_per_node = cluster.island_entries > 0 ? cluster.islands[0].gpus_per_node : 8;
    out.failures_per_gpu_hour = per_node_day / (24.0 * gpus_per_node);
  }
}

}  // namespace shardmeter::cli
