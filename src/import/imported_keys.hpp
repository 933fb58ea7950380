#pragma once
// What an importer reads from a launch configuration or a model file: scenario keys (dotted, as `--set` takes them)
// with the place in the file each came from, and notes for the user. src/import/scenario_merge.hpp sets them on a
// base scenario.
#include <optional>
#include <string>
#include <vector>

#include "src/scenario/scenario_error.hpp"

namespace shardmeter::cli {

struct ImportedKey {
  std::string key;        // "plan.tp"
  std::string value;      // YAML scalar text, "4"
  SourceLocation from;    // where the file says it
  std::string said;       // how the file says it: "--tensor-model-parallel-size 4"
};

// DeepSpeed without train_batch_size: the global batch is micro x accumulation x (GPUs / divisor), known only once
// the cluster is (src/import/scenario_merge.cpp resolves it).
struct BatchFromWorld {
  long long micro = 1, accumulation = 1, divisor = 1;
  SourceLocation from;
  std::string said;
};

// DeepSpeed's config has no run length; ShardMeter's export writes `shardmeter_train_steps`. The tokens it trains
// are steps x global batch x seq_len, known only once the batch and the model are (scenario_merge.cpp).
struct TokensFromSteps {
  long long steps = 0;
  SourceLocation from;
  std::string said;
};

struct ImportedScenario {
  std::string framework;                     // "megatron", "torchtitan", "deepspeed", "hf"
  std::string source;                        // the file read
  std::vector<ImportedKey> keys;             // in the order read; a later key overrides an earlier one
  std::optional<BatchFromWorld> batch_from_world;
  std::optional<TokensFromSteps> tokens_from_steps;
  std::optional<TokensFromSteps> warmup_from_steps;   // DeepSpeed's shardmeter_warmup_steps, the same way
  std::vector<std::string> notes;            // what the file cannot say and where it was taken from instead
  bool has_model = false;                    // the file describes the whole model (else the base scenario must)

  void set(std::string key, std::string value, SourceLocation from, std::string said) {
    keys.push_back(ImportedKey{std::move(key), std::move(value), std::move(from), std::move(said)});
  }
  const ImportedKey* find(std::string_view key) const {
    for (auto it = keys.rbegin(); it != keys.rend(); ++it)
      if (it->key == key) return &*it;
    return nullptr;
  }
};

}  // namespace shardmeter::cli
