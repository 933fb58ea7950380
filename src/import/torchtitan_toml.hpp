#pragma once
// `shardmeter import torchtitan JOB.toml`: a torchtitan job config as torchtitan v0.2.2 reads it (the last release
// that reads TOML, the one `shardmeter export --format torchtitan` targets) as scenario keys: the model flavor (as
// the shipped preset with its dimensions), batch sizes and steps, FSDP / HSDP / DDP degrees, TP (always with sequence
// parallelism at v0.2.2), PP schedule and split, CP, EP, activation checkpointing, Float8 and TorchFT DiLoCo. Tables
// and keys that change nothing ShardMeter costs are read and left out; any other key is an error at its line.
// docs/import.md has the table. The TOML reader is src/import/toml_subset.hpp.
#include <string>

#include "src/import/imported_keys.hpp"

namespace shardmeter::cli {

ImportedScenario import_torchtitan(const std::string& text, const std::string& file);

}  // namespace shardmeter::cli
