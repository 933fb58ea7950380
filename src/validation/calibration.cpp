#include "src/validation/calibration.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

#include "model/spec/enum_names.hpp"
#include "model/job/evaluate.hpp"

namespace shardmeter::cli {

namespace {

struct Bound {
  double lo, hi;
  bool log_scale;
};
// Physical ranges: a GEMM cannot beat its MAMF (~0.9 of peak); fused attention kernels reach 0.1-0.8;
// tiles halve in efficiency somewhere between 16 and 512; the SM/HBM contention of overlapped collectives is
// scaled by 0.5-2 at most (docs/model.md §6.6, §13).
constexpr std::array<Bound, 4> kBounds = {{{0.30, 0.92, false}, {16, 512, true}, {0.10, 0.85, false}, {0.5, 2.0, false}}};

// Index of gemm_half_dim in the fitted vector.
constexpr std::size_t kHalfDim = 1;

std::array<double, 4> to_array(const EfficiencyConstants& c) { return {c.gemm, c.gemm_half_dim, c.attention, c.contention_scale}; }
EfficiencyConstants from_array(const std::array<double, 4>& a) { return {a[0], a[1], a[2], a[3]}; }

void apply(model::GpuSpec& gpu, const EfficiencyConstants& c) {
  gpu.gemm_efficiency = c.gemm;
  gpu.gemm_half_dim = c.gemm_half_dim;
  gpu.attention_efficiency = c.attention;
  gpu.contention_scale = c.contention_scale;
}

double mape(std::vector<ValidationRun*>& rows, const EfficiencyConstants& c) {
  double sum = 0;
  for (ValidationRun* r : rows) {
    model::Scenario s = r->scenario;
    for (int i = 0; i < s.cluster.island_entries; ++i) apply(s.cluster.islands[static_cast<std::size_t>(i)].gpu, c);
    const double predicted = model::evaluate(s).step_time_s;
    sum += std::fabs(predicted - r->measured_step_s) / r->measured_step_s;
  }
  return rows.empty() ? 0.0 : 100.0 * sum / rows.size();
}

}  // namespace

std::vector<GpuFit> calibrate(std::vector<ValidationRun>& runs) {
  using Group = std::pair<std::string, model::Stack>;
  std::map<Group, std::vector<ValidationRun*>> by_group;
  for (ValidationRun& r : runs)
    if (r.use == RowUse::calibrate && r.convertible) by_group[{r.gpu_family, r.scenario.plan.stack}].push_back(&r);

  std::vector<GpuFit> fits;
  for (auto& [group, rows] : by_group) {
    const auto& [family, stack] = group;
    GpuFit fit;
    fit.family = family;
    fit.stack = std::string(model::enum_name(stack));
    fit.rows = static_cast<int>(rows.size());
    for (const ValidationRun* r : rows) {
      const std::string gpu(r->scenario.cluster.islands[0].gpu.name.view());
      if (std::find(fit.gpus.begin(), fit.gpus.end(), gpu) == fit.gpus.end()) fit.gpus.push_back(gpu);
    }
    const model::GpuSpec& spec = rows.front()->scenario.cluster.islands[0].gpu;
    fit.before = {spec.gemm_efficiency, spec.gemm_half_dim, spec.attention_efficiency, spec.contention_scale};
    fit.mape_before = mape(rows, fit.before);

    // Coordinate search: try +-step on each constant, keep improvements, halve the steps when none helps.
    std::array<double, 4> x = to_array(fit.before);
    std::array<double, 4> step = {0.08, 0.5, 0.08, 0.2};  // log2 step for the half dimension
    double best = fit.mape_before;
    for (int round = 0; round < 60; ++round) {
      bool improved = false;
      for (std::size_t k = 0; k < x.size(); ++k) {
        if (k == kHalfDim) continue;  // a cuBLAS tile property of the GPU, not of the stack: fixed per family
        for (double dir : {+1.0, -1.0}) {
          std::array<double, 4> y = x;
          y[k] = kBounds[k].log_scale ? y[k] * std::exp2(dir * step[k]) : y[k] + dir * step[k];
          y[k] = std::clamp(y[k], kBounds[k].lo, kBounds[k].hi);
          const double m = mape(rows, from_array(y));
          if (m < best - 1e-9) {
            best = m;
            x = y;
            improved = true;
          }
        }
      }
      if (!improved) {
        for (double& s : step) s /= 2;
        if (step[0] < 1e-3) break;
      }
    }
    fit.after = from_array(x);
    fit.mape_after = best;
    fits.push_back(fit);
    for (ValidationRun& r : runs)
      if (r.gpu_family == family && r.scenario.plan.stack == stack) apply(r.scenario.cluster.islands[0].gpu, fit.after);
  }
  return fits;
}

}  // namespace shardmeter::cli
