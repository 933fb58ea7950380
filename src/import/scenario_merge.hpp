#pragma once
// An import turned into a scenario: the imported keys set on a base scenario (the user's --scenario file, or one
// island of --gpu x --nodes), then the user's --set overrides, read and checked like any scenario file. Errors about
// an imported value are reported where the imported file says it (src/import/imported_keys.hpp).
#include <string>
#include <vector>

#include "src/import/imported_keys.hpp"
#include "src/scenario/catalog.hpp"
#include "src/scenario/scenario_parse.hpp"

namespace shardmeter::cli {

struct ImportBase {
  std::string scenario_path;         // --scenario FILE: cluster, token budget, prices and what the file cannot say
  std::string gpu;                   // --gpu TYPE with --nodes N or --gpus N: one island, replacing the base's
  long long nodes = 0, gpus = 0;
  std::string model_preset;          // --model PRESET: the model, when the imported file does not describe it
  double tokens = -1;                // --tokens N: training.tokens (< 0: the base's, or the file's)
  std::string name;                  // --name NAME
  std::vector<Override> overrides;   // --set KEY=VALUE, applied last
};

struct MergedScenario {
  std::string yaml;          // the scenario file: a comment header (source, notes, where each key came from) + YAML
  LoadedScenario loaded;     // the scenario read from the document (checked)
};

// InputError unless the options name one cluster: --scenario, or --gpu with exactly one of --nodes and --gpus.
void check_import_base(const ImportBase& base);

// Throws ScenarioError (located in the imported file, the base scenario or a --set) or InputError (base options
// that do not fit together).
MergedScenario merge_import(const ImportedScenario& imported, const ImportBase& base, const Catalog& catalog);

}  // namespace shardmeter::cli
