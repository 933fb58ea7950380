#pragma once
// `shardmeter import megatron`: Megatron-LM pretrain_gpt.py arguments (an argument list, a launch script, or the
// MEGATRON_ARGS array `shardmeter export --format megatron` writes) as scenario keys. Read as Megatron-LM
// core_v0.19.0 reads them (megatron/training/arguments.py, the version the export targets): a flag the file leaves
// out takes Megatron's default, not the base scenario's. Flags that change nothing ShardMeter costs (data,
// tokenizer, learning rate, logging, checkpoints) are skipped; any other flag is an error at its line.
// docs/import.md has the table.
#include <string>

#include "src/import/imported_keys.hpp"

namespace shardmeter::cli {

ImportedScenario import_megatron(const std::string& text, const std::string& file);

}  // namespace shardmeter::cli
