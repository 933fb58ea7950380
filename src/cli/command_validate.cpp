// `shardmeter validate [CSV] [--data-dir DIR]` predicts every published run of the calibration table and compares
// time per step, per row, per source and overall; `shardmeter calibrate [CSV] [--data-dir DIR]` first fits one set
// of efficiency constants per GPU family to the `calibrate` rows, prints them for scenarios/gpus.yaml, and then
// reports the same comparison (holdout rows stay out of sample).
#include <optional>
#include <string_view>
#include <ostream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "src/validation/calibration.hpp"
#include "src/cli/command_line.hpp"
#include "src/cli/commands.hpp"
#include "src/validation/decentralized_validation.hpp"
#include "src/validation/nccl_tests_validation.hpp"
#include "src/validation/validation.hpp"
#include "src/validation/validation_report.hpp"

namespace shardmeter::cli {

namespace {

struct Table {
  std::vector<ValidationRun> runs;
  std::string data_dir;
  bool default_csv = true;   // no CSV given: the decentralized anchors are scored too
  bool json = false;         // validate --json
};

// Both commands take the same arguments. Returns the runs, or nothing when --help was printed.
std::optional<Table> load_table(const char* name, const std::vector<std::string>& args, std::ostream& out) {
  CommandLine line(*find_command(name));
  line.add(SharedOption::data_dir);
  if (std::string_view(name) == "validate") line.add(SharedOption::json);
  line.parse(args);
  if (line.wants_help()) {
    line.print_help(out);
    out << "\nCSV defaults to <data-dir>/validation/published_runs.csv. Rows marked `calibrate` and `holdout` are\n"
           "scored; `reference` rows (uncertain configurations) are shown but not scored. Without a CSV, `validate`\n"
           "also scores <data-dir>/validation/decentralized_runs.csv as groups of its own and the held-out published runs\n"
           "of <data-dir>/validation/heldout_runs.csv as a section of their own, the published small-model sweep of\n"
           "<data-dir>/validation/small_model_runs.csv as another (never fitted), and the published nccl-tests results\n"
           "of <data-dir>/validation/nccl_tests_runs.csv against the collective model (docs/accuracy.md).\n";
    return std::nullopt;
  }
  const std::string dir = line.data_dir();
  if (line.positional().size() > 1) throw line.usage("expected at most one CSV");
  const std::string csv =
      line.positional().empty() ? dir + "/validation/published_runs.csv" : line.positional().front();
  return Table{load_validation_runs(csv, load_catalog(dir)), dir, line.positional().empty(),
               std::string_view(name) == "validate" && line.json()};
}

}  // namespace

int run_validate(const std::vector<std::string>& args, std::ostream& out) {
  std::optional<Table> table = load_table("validate", args, out);
  if (!table) return 0;
  // Without a CSV argument the held-out published runs are scored too, as a section of their own (never fitted).
  std::optional<std::vector<ValidationRun>> heldout;
  if (table->default_csv) {
    heldout = load_validation_runs(table->data_dir + "/validation/heldout_runs.csv", load_catalog(table->data_dir));
    predict(*heldout);
  }
  // And the published small-model sweep (issue 29 point 3): held out too, but kept out of the held-out figure.
  std::optional<std::vector<ValidationRun>> small_model;
  if (table->default_csv) {
    small_model =
        load_validation_runs(table->data_dir + "/validation/small_model_runs.csv", load_catalog(table->data_dir));
    predict(*small_model);
  }
  if (table->json) {
    predict(table->runs);
    // The decentralized groups the text prints first, under "decentralized" (issue 31).
    const std::string anchors =
        table->default_csv ? anchor_json_text(score_decentralized_anchors(
                                 table->data_dir + "/validation/decentralized_runs.csv", table->data_dir,
                                 load_catalog(table->data_dir)))
                           : std::string();
    // The published nccl-tests results against the collective model (issue 29), under "nccl_tests".
    const std::string nccl_tests =
        table->default_csv ? nccl_test_json_text(score_nccl_tests(table->data_dir + "/validation/nccl_tests_runs.csv",
                                                                  load_catalog(table->data_dir)))
                           : std::string();
    out << validation_json(table->runs, heldout ? &*heldout : nullptr, anchors, nccl_tests,
                           small_model ? &*small_model : nullptr);
    return 0;
  }
  // The decentralized anchors and the held-out runs first: the report closes with the step-time line
  // "overall MAPE X% over N runs".
  if (table->default_csv)
    out << format_anchor_report(score_decentralized_anchors(table->data_dir + "/validation/decentralized_runs.csv",
                                                            table->data_dir, load_catalog(table->data_dir)))
        << "\n";
  if (table->default_csv)
    out << format_nccl_test_report(
               score_nccl_tests(table->data_dir + "/validation/nccl_tests_runs.csv", load_catalog(table->data_dir)))
        << "\n";
  if (heldout) out << format_heldout_report(*heldout) << "\n";
  if (small_model) out << format_small_model_report(*small_model) << "\n";
  predict(table->runs);
  out << format_validation_report(table->runs);
  return 0;
}

int run_calibrate(const std::vector<std::string>& args, std::ostream& out) {
  std::optional<Table> table = load_table("calibrate", args, out);
  if (!table) return 0;
  std::vector<ValidationRun>* runs = &table->runs;
  const std::vector<GpuFit> fits = calibrate(*runs);
  out << "Fitted on `calibrate` rows only (one set per GPU family and stack); paste under `efficiency: stacks:` of\n"
         "every entry of the family in scenarios/gpus.yaml:\n\n";
  for (const GpuFit& f : fits) {
    out << fmt::format("  family {} ({}), stack {}:  # {} calibrate rows, MAPE {:.1f}% -> {:.1f}%\n", f.family,
                       fmt::join(f.gpus, ", "), f.stack, f.rows, f.mape_before, f.mape_after);
    out << fmt::format("    {}: {{gemm: {:.3f}, gemm_half_dim: {:.0f}, attention: {:.3f}, contention_scale: {:.2f}}}\n",
                       f.stack, f.after.gemm, f.after.gemm_half_dim, f.after.attention, f.after.contention_scale);
  }
  predict(*runs);
  out << "\nValidation with the fitted constants:\n\n" << format_validation_report(*runs);
  return 0;
}

}  // namespace shardmeter::cli
