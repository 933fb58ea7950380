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
#include <string_view>
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "results/errors.hpp"
#include "src/cli/cli.hpp"
#include "src/scenario/scenario_error.hpp"

namespace {

using namespace shardmeter;

// Whether the reader guard stopped the child at one of its limits (results/files/isolated_process.hpp: 2 s of
// processor time or 20 s without progress, 1 GiB of memory).
bool stopped(const std::exception& e) {
  return std::string_view(e.what()).find("and was stopped") != std::string_view::npos;
}

// One command, in process: it must succeed or refuse with a located error. Returns false when the reader guard
// stopped the child: every later command would spend as long again on the same bytes, which only slows the fuzzer.
bool run_command(const std::vector<std::string>& args) {
  std::ostringstream out;
  try {
    (void)cli::run(args, out);
  } catch (const cli::ScenarioError& e) {   // the commands wrap a reader's error in any of these four
    if (stopped(e)) return false;
  } catch (const cli::InputError& e) {
    if (stopped(e)) return false;
  } catch (const cli::UsageError& e) {
    if (stopped(e)) return false;
  } catch (const results::ResultsError& e) {
    if (stopped(e)) return false;
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
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = fuzz::scratch_file(data, size, "report.h5");
  const std::string html = path + ".html", markdown = path + ".md";
  if (run_command({"report", path, "-o", html, "--markdown", markdown}) &&
      run_command({"report", path, "--baseline", path, "-o", html}))
    for (const char* format : {"plan-json", "torchtitan", "megatron", "deepspeed"})
      if (!run_command({"export", path, "--format", format})) break;
  std::error_code ec;
  std::filesystem::remove(html, ec);
  std::filesystem::remove(markdown, ec);
  return 0;
}
