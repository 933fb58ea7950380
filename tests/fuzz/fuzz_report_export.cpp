// libFuzzer harness (issue 33): `report` and `export` end to end on a result file's bytes, numbers included:
// the guarded reader, the report model, the HTML and Markdown renderers, every export format. Exit status 2 (a
// ScenarioError, InputError, UsageError or ResultsError: one located line) is a correct answer; any other exception
// (what main() turns into "internal error", exit 1, as `stod` did on a subnormal cost) or a crash is a finding.
// Seeds: the shipped small front and the same front with a subnormal total cost (tests/fuzz/corpus/).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "results/errors.hpp"
#include "src/cli/cli.hpp"
#include "src/scenario/scenario_error.hpp"

namespace {

using namespace shardmeter;

// One command, in process: true when it succeeded or refused with a located error.
void run_command(const std::vector<std::string>& args) {
  std::ostringstream out;
  try {
    (void)cli::run(args, out);
  } catch (const cli::ScenarioError&) {
  } catch (const cli::InputError&) {
  } catch (const cli::UsageError&) {
  } catch (const results::ResultsError&) {
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz_report_export: internal error from `shardmeter %s`: %s\n", args.front().c_str(),
                 e.what());
    std::abort();
  }
  // Nothing a report prints may be a non-number.
  const std::string text = out.str();
  for (const char* bad : {"inf%", "nan%"})
    if (text.find(bad) != std::string::npos) {
      std::fprintf(stderr, "fuzz_report_export: `shardmeter %s` printed %s\n", args.front().c_str(), bad);
      std::abort();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = fuzz::scratch_file(data, size, "report.h5");
  const std::string html = path + ".html", markdown = path + ".md";
  run_command({"report", path, "-o", html, "--markdown", markdown});
  run_command({"report", path, "--baseline", path, "-o", html});
  for (const char* format : {"plan-json", "torchtitan", "megatron", "deepspeed"})
    run_command({"export", path, "--format", format});
  std::error_code ec;
  std::filesystem::remove(html, ec);
  std::filesystem::remove(markdown, ec);
  return 0;
}
