#pragma once
// `shardmeter import deepspeed CONFIG.json`: a DeepSpeed config (as DeepSpeed v0.16.4 reads it, the version
// `shardmeter export --format deepspeed` targets) as scenario keys: batch sizes, ZeRO stage (MiCS shard groups as
// hsdp), precision, AutoTP, pipeline stages, and the DeepSpeed-MoE layer arguments the export carries under
// "shardmeter_moe_layer". The model lives in the model code: it comes from the base scenario or --model. Keys that
// change nothing ShardMeter costs (optimizer and scheduler settings, logging, bucket sizes) are read and left out;
// any other key is an error at its line. docs/import.md has the table.
#include <string>

#include "src/import/imported_keys.hpp"

namespace shardmeter::cli {

ImportedScenario import_deepspeed(const std::string& path);

}  // namespace shardmeter::cli
