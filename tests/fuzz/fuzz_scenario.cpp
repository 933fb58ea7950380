// libFuzzer harness: a scenario file, end to end as `estimate --json` and `validate` see it — limits and UTF-8,
// YAML, every section parser, the search: section, the consistency check, the model and the JSON writer. A
// ScenarioError (a located message, status 2) is a correct answer; any other exception, a crash, a sanitizer report
// or a hang is a bug.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "fuzz_support.hpp"
#include "model/job/evaluate.hpp"
#include "results/files/estimate_json.hpp"
#include "src/planning/search_section.hpp"
#include "src/scenario/scenario_check.hpp"
#include "src/scenario/scenario_parse.hpp"

namespace {

// nlohmann writes NaN and inf as null; names may contain the word, so look at values, not text.
bool all_finite(const nlohmann::json& j) {
  if (j.is_null()) return false;
  if (j.is_number_float()) return std::isfinite(j.get<double>());
  if (j.is_structured())
    for (const auto& item : j) if (!all_finite(item)) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace shardmeter;
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const cli::ScenarioDocument doc = cli::scenario_document_from_text("fuzz.yaml", text);
    const model::Scenario scenario = cli::parse_scenario(doc, fuzz::shipped_catalog());
    cli::check_scenario(scenario, doc);
    if (cli::scalar_at(doc, "search") || cli::find_node(doc.root.node(), "search").IsDefined())
      cli::read_search_section(doc, fuzz::shipped_catalog(), scenario);
    const model::Estimate estimate = model::evaluate(scenario);
    const std::string json = results::estimate_json(scenario, estimate, "fuzz");
    if (!all_finite(nlohmann::json::parse(json))) __builtin_trap();  // NaN or inf reached an output (as null)
  } catch (const cli::ScenarioError&) {
  }
  return 0;
}
