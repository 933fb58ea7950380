#pragma once
// The text `shardmeter validate` and `shardmeter calibrate` print: per-row errors, MAPE per source and use, the
// Korthikanti Table 5 comparison, and the closing line "overall MAPE X.X% over N runs".
#include <string>
#include <vector>

#include "src/validation/validation.hpp"

namespace shardmeter::cli {

std::string format_validation_report(const std::vector<ValidationRun>& runs);
// `shardmeter validate --json`: {"rows": [{id, source, use, scored, measured, predicted, error_pct, fits,
// memory_gb, capacity_gb, memory_by_class_gb}], "groups":
// [{source, runs, mape_pct, worst_pct, oom_false}] (scored rows per source group), "overall_mape_pct", "overall_runs",
// "overall_oom_false"}; times in seconds per step, null where a row cannot be compared; oom_false counts the scored
// runs the model calls out of memory.
// With `heldout`, also "heldout": {rows, groups, mape_pct, worst_pct, runs, oom_false} for the held-out table.
// `decentralized`: anchor_json_text of the decentralized anchors (its "decentralized" member), or empty;
// `nccl_tests`: nccl_test_json_text of the published nccl-tests rows (its "nccl_tests" member), or empty.
// With `small_model`, also "small_model": the same members as "heldout" for the small-model sweep table.
std::string validation_json(const std::vector<ValidationRun>& runs, const std::vector<ValidationRun>* heldout = nullptr,
                            const std::string& decentralized = {}, const std::string& nccl_tests = {},
                            const std::vector<ValidationRun>* small_model = nullptr);
// The held-out published runs (scenarios/validation/heldout_runs.csv), scored apart and never fitted: per-row errors,
// MAPE per source and the line "held-out MAPE X.X% over N runs (worst W%)".
std::string format_heldout_report(const std::vector<ValidationRun>& runs);
// The published small-model sweep (scenarios/validation/small_model_runs.csv: the Ultra-Scale Playbook's single-node
// 1B/3B/8B runs), scored apart, never fitted and kept out of the held-out figure: per-row errors, MAPE per source and the
// line "small-model sweep MAPE X.X% over N runs (worst W%), oom_false K" (docs/accuracy.md, docs/model.md §14).
std::string format_small_model_report(const std::vector<ValidationRun>& runs);

}  // namespace shardmeter::cli
