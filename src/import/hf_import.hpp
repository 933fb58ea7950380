#pragma once
// `shardmeter import hf CONFIG`: a Hugging Face config.json (src/scenario/hf_config.hpp) as model keys, each with the
// line of the field it came from; with a cluster, a whole scenario (src/import/scenario_merge.hpp).
#include <string>

#include "src/import/imported_keys.hpp"

namespace shardmeter::cli {

// `seq_len` > 0 sets model.seq_len (the file cannot: max_position_embeddings is the context limit).
ImportedScenario import_hf(const std::string& path, long long seq_len);

// The model keys alone, as a `model:` block with a comment per key naming its config.json line.
std::string hf_model_block(const ImportedScenario& imported);

}  // namespace shardmeter::cli
