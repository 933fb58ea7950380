// `shardmeter calibrate [CSV] [--data-dir DIR]`: fit one set of efficiency constants per GPU type to the
// `calibrate` rows of the published-runs table, print them (for scenarios/gpus.yaml) and the validation report
// that results, with holdout rows scored out of sample.
#include <ostream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "src/calibration.hpp"
#include "src/cli.hpp"
#include "src/commands.hpp"
#include "src/validation_report.hpp"
#include "src/version.hpp"

namespace shardmeter::cli {

namespace po = boost::program_options;

int run_calibrate(const std::vector<std::string>& args, std::ostream& out) {
  const Command& command = *find_command("calibrate");
  po::options_description options("Options");
  options.add_options()
      ("data-dir", po::value<std::string>(), "catalogs and model presets (default: $SHARDMETER_DATA_DIR or the "
       "source tree's scenarios/)")
      ("help,h", "print this help");
  const po::variables_map vm = parse_command_line(command, args, options, "csv");
  if (vm.count("help")) {
    print_command_help(command, options, out);
    return 0;
  }
  const std::string dir = vm.count("data-dir") ? vm["data-dir"].as<std::string>() : data_dir();
  const auto positional = vm.count("csv") ? vm["csv"].as<std::vector<std::string>>() : std::vector<std::string>{};
  if (positional.size() > 1) throw UsageError("shardmeter calibrate: expected at most one CSV (see --help)");
  const std::string csv = positional.empty() ? dir + "/validation/published_runs.csv" : positional.front();

  std::vector<ValidationRun> runs = load_validation_runs(csv, load_catalog(dir));
  const std::vector<GpuFit> fits = calibrate(runs);
  out << "Fitted on `calibrate` rows only (one set per GPU family); paste into every entry of the family in\n"
         "scenarios/gpus.yaml:\n\n";
  for (const GpuFit& f : fits) {
    out << fmt::format("  family {} ({}):  # {} calibrate rows, MAPE {:.1f}% -> {:.1f}%\n", f.family,
                       fmt::join(f.gpus, ", "), f.rows, f.mape_before, f.mape_after);
    out << fmt::format("    efficiency: {{gemm: {:.3f}, gemm_half_dim: {:.0f}, attention: {:.3f}, overlap_slowdown: {:.2f}}}\n",
                       f.after.gemm, f.after.gemm_half_dim, f.after.attention, f.after.overlap_slowdown);
  }
  predict(runs);
  out << "\nValidation with the fitted constants:\n\n" << format_validation_report(runs);
  return 0;
}

}  // namespace shardmeter::cli
