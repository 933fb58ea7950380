// libFuzzer harness: `--set KEY=VALUE` and `--axis KEY=VALUES` (ranges A:B:xK, A:B:+K, A:B, YAML lists) applied to
// a small shipped scenario. The input's first line is the --set text, the rest the --axis text. A ScenarioError
// is a correct answer; anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.hpp"
#include "src/planning/axis_builder.hpp"
#include "src/scenario/scenario_check.hpp"
#include "src/scenario/scenario_parse.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace shardmeter;
  static const cli::LoadedScenario base =
      cli::load_scenario(SHARDMETER_DATA_DIR "/default.yaml", {}, fuzz::shipped_catalog());
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::size_t newline = text.find('\n');
  const std::string set = text.substr(0, newline);
  const std::string axis = newline == std::string::npos ? std::string() : text.substr(newline + 1);
  try {
    cli::ScenarioDocument doc = base.doc;
    cli::apply_override(doc, cli::parse_override(set));
    const model::Scenario scenario = cli::parse_scenario(doc, fuzz::shipped_catalog());
    cli::check_scenario(scenario, doc);
  } catch (const cli::ScenarioError&) {
  }
  try {
    const cli::AxisSpec spec = cli::axis_from_text(axis);
    if (spec.values.size() <= 4) cli::build_axis(base.doc, base.scenario, fuzz::shipped_catalog(), spec);
  } catch (const cli::ScenarioError&) {
  }
  return 0;
}
