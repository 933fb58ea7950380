// `shardmeter validate [CSV] [--data-dir DIR] [--use calibrate|holdout|reference|scored|all]`: predict every
// published run of the calibration table and compare time per step, per row, per source and overall.
#include <map>
#include <ostream>

#include <fmt/format.h>

#include "src/cli.hpp"
#include "src/commands.hpp"
#include "src/validation.hpp"
#include "src/validation_report.hpp"
#include "src/version.hpp"

namespace shardmeter::cli {

namespace po = boost::program_options;

int run_validate(const std::vector<std::string>& args, std::ostream& out) {
  const Command& command = *find_command("validate");
  po::options_description options("Options");
  options.add_options()
      ("data-dir", po::value<std::string>(), "catalogs and model presets (default: $SHARDMETER_DATA_DIR or the "
       "source tree's scenarios/)")
      ("help,h", "print this help");
  const po::variables_map vm = parse_command_line(command, args, options, "csv");
  if (vm.count("help")) {
    print_command_help(command, options, out);
    out << "\nCSV defaults to <data-dir>/validation/published_runs.csv. Rows marked `calibrate` and `holdout` are\n"
           "scored; `reference` rows (uncertain configurations) are shown but not scored.\n";
    return 0;
  }
  const std::string dir = vm.count("data-dir") ? vm["data-dir"].as<std::string>() : data_dir();
  const auto positional = vm.count("csv") ? vm["csv"].as<std::vector<std::string>>() : std::vector<std::string>{};
  if (positional.size() > 1) throw UsageError("shardmeter validate: expected at most one CSV (see --help)");
  const std::string csv = positional.empty() ? dir + "/validation/published_runs.csv" : positional.front();

  const Catalog catalog = load_catalog(dir);
  std::vector<ValidationRun> runs = load_validation_runs(csv, catalog);
  predict(runs);
  out << format_validation_report(runs);
  return 0;
}

}  // namespace shardmeter::cli
