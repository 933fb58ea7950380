#pragma once
// Published training runs (scenarios/validation/published_runs.csv) as scenarios, with the measured step time
// recovered through each source's own FLOP convention, and the model's prediction beside it.
#include <string>
#include <vector>

#include "model/spec/estimate.hpp"
#include "model/spec/reject_reason.hpp"
#include "model/spec/scenario.hpp"
#include "src/scenario/catalog.hpp"

namespace shardmeter::cli {

enum class RowUse { calibrate, holdout, reference };

struct ValidationRun {
  std::string id;
  std::string source_group;
  std::string metric;            // as published: seconds_per_iter, tflops_per_gpu, tokens_per_s, ...
  std::string flop_convention;
  RowUse use = RowUse::reference;
  bool fully_specified = false;  // every column known from the source (not inferred)
  int line = 0;
  double published_value = 0;
  model::Scenario scenario{};
  std::string gpu_family;        // catalog family of the run's GPU (calibration groups by it)
  double measured_step_s = 0;    // the published figure converted to seconds per optimizer step
  bool convertible = true;       // false when the source's FLOP convention is unknown
  double predicted_step_s = 0;
  bool predicted_fits = true;    // the model thinks the plan fits in memory
  double predicted_memory_bytes = 0;   // the model's peak memory of the fullest GPU
  double memory_capacity_bytes = 0;    // its usable HBM (docs/model.md §7.8)
  model::MemoryBreakdown memory{};     // the fullest GPU's memory by tensor class
  // Peak memory per GPU the source publishes (published_memory_gib column; 0 = not published) and the model's figure
  // for the same quantity: the allocator's peak reserved bytes, i.e. the tensors plus the allocator reserve, without
  // the CUDA context and communication buffers PyTorch's counters do not see (docs/accuracy.md, memory validation).
  double published_memory_bytes = 0;
  double predicted_reserved_bytes = 0;
  model::RejectReason rejected = model::RejectReason::none;  // an inconsistent row (never out_of_memory)
  double error() const { return (predicted_step_s - measured_step_s) / measured_step_s; }
  bool scored() const { return use != RowUse::reference && convertible && rejected == model::RejectReason::none; }
  bool memory_scored() const { return published_memory_bytes > 0 && rejected == model::RejectReason::none; }
  double memory_error() const { return (predicted_reserved_bytes - published_memory_bytes) / published_memory_bytes; }
};

std::string_view to_string(RowUse use) noexcept;

// Reads and converts every row; throws ScenarioError naming the CSV file, line and column of a bad cell.
std::vector<ValidationRun> load_validation_runs(const std::string& csv_path, const Catalog& catalog);

// Fills predicted_step_s / predicted_fits with model::evaluate.
void predict(std::vector<ValidationRun>& runs);

// Step time of a published run from its metric, using the source's FLOP convention
// (scenarios/validation/README.md §2). Returns a negative value when it cannot be converted.
double measured_step_time_s(const std::string& metric, const std::string& convention, double value,
                            const model::Scenario& scenario);

struct ErrorSummary {
  int runs = 0;
  double mape = 0;       // mean absolute percentage error, in percent
  double worst = 0;      // largest absolute error, in percent
  int oom_false = 0;     // published runs (they ran) the model calls out of memory: the target is 0
};
ErrorSummary summarize(const std::vector<const ValidationRun*>& runs);
// The same over the rows' peak-memory errors (memory_error; rows with a published figure).
ErrorSummary summarize_memory(const std::vector<const ValidationRun*>& runs);

}  // namespace shardmeter::cli
