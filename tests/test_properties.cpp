// Metamorphic properties of the model over a few thousand seeded random scenarios (issue 31; docs/model.md §17).
// Each TEST_CASE is one ctest test, `properties.<name>`; every violation prints the scenario (its --set overrides)
// and both values, and the case requires none. The draws are fixed by kSeed, so a failure reproduces.
#include <catch2/catch.hpp>

#include <cstdint>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "catalog_fixture.hpp"
#include "model/spec/estimate_warnings.hpp"
#include "model/job/evaluate.hpp"
#include "src/scenario/scenario_parse.hpp"

using namespace shardmeter;

namespace {

constexpr std::uint64_t kSeed = 20261207;
constexpr int kDraws = 2500;
constexpr double kTolerance = 1e-9;  // relative: rounding, not physics

struct Drawn {
  std::vector<std::string> sets;  // the --set overrides of scenarios/default.yaml that make it
  model::Scenario scenario;
  std::string text() const {
    std::string out = "shardmeter estimate scenarios/default.yaml";
    for (const std::string& s : sets) out += " --set " + s;
    return out;
  }
};

template <class T>
const T& pick(std::mt19937_64& rng, const std::vector<T>& values) {
  return values[std::uniform_int_distribution<std::size_t>(0, values.size() - 1)(rng)];
}

// Evaluated to a step time: consistent, fitting or not (out_of_memory and the goodput floor still time the step).
bool timed(const model::Estimate& e) {
  return e.reject_reason == model::RejectReason::none || e.reject_reason == model::RejectReason::out_of_memory ||
         e.reject_reason == model::RejectReason::goodput_below_floor;
}

// kDraws consistent scenarios: shipped GPUs and model presets, one or two islands, every sharding mode, 3-D
// layouts, recompute, micro-batch, sequence length, precision and stack drawn independently. Inconsistent draws
// (the loader or the consistency rules reject them) are redrawn.
const std::vector<Drawn>& draws() {
  static const std::vector<Drawn> all = [] {
    std::mt19937_64 rng(kSeed);
    const std::vector<std::string> gpu_names = {"a100-sxm-80gb", "h100-sxm", "h200-sxm", "b200", "gb200", "mi300x"};
    const std::vector<std::string> models = {"llama3-8b", "mistral-7b", "llama2-13b", "mpt-30b",
                                             "llama3-70b", "mixtral-8x7b", "qwen3-30b-a3b"};
    const std::vector<int> sizes = {16, 32, 64, 128, 256};
    const std::vector<int> tps = {1, 2, 4, 8};
    const std::vector<int> pps = {1, 1, 2, 4};
    const std::vector<int> cps = {1, 1, 1, 2};
    const std::vector<std::string> shardings = {"none", "zero1", "zero2", "fsdp", "hsdp"};
    const std::vector<std::string> recomputes = {"none", "selective", "full"};
    const std::vector<int> micro = {1, 2, 4};
    const std::vector<int> seqs = {2048, 4096, 8192};
    const std::vector<std::string> stacks = {"megatron_te", "torch_fsdp2", "torch_fsdp1", "deepspeed"};
    const std::vector<int> per_replica = {1, 2, 4, 8};
    const std::string path = SHARDMETER_SOURCE_DIR "/scenarios/default.yaml";
    std::vector<Drawn> out;
    while (static_cast<int>(out.size()) < kDraws) {
      const int gpus = pick(rng, sizes);
      const int count = std::uniform_int_distribution<int>(0, 3)(rng) == 0 ? 2 : 1;
      const int tp = pick(rng, tps), pp = pick(rng, pps), cp = pick(rng, cps), mb = pick(rng, micro);
      if (gpus % (tp * pp * cp) != 0) continue;
      const int dp = gpus * count / (tp * pp * cp);
      const std::string sharding = pick(rng, shardings);
      Drawn d;
      d.sets = {"model.preset=" + pick(rng, models),
                "model.seq_len=" + std::to_string(pick(rng, seqs)),
                "cluster.islands.0.gpu=" + pick(rng, gpu_names),
                "cluster.islands.0.gpus=" + std::to_string(gpus),
                "cluster.islands.0.count=" + std::to_string(count),
                "plan.tp=" + std::to_string(tp),
                "plan.pp=" + std::to_string(pp),
                "plan.cp=" + std::to_string(cp),
                std::string("plan.sequence_parallel=") + (tp > 1 ? "true" : "false"),
                "plan.sharding=" + sharding,
                "plan.recompute=" + pick(rng, recomputes),
                "plan.stack=" + pick(rng, stacks),
                "training.micro_batch=" + std::to_string(mb),
                "training.global_batch=" + std::to_string(mb * dp * pick(rng, per_replica) * (pp > 1 ? pp : 1)),
                std::string("training.precision=") + (std::uniform_int_distribution<int>(0, 2)(rng) == 0 ? "fp8" : "bf16")};
      std::vector<cli::Override> overrides;
      for (const std::string& s : d.sets) overrides.push_back(cli::parse_override(s));
      try {
        d.scenario = cli::load_scenario(path, overrides, test::shipped_catalog()).scenario;
      } catch (const std::exception&) {
        continue;  // a combination the scenario rules reject (e.g. fp8 on a stack without it)
      }
      if (!timed(model::evaluate(d.scenario))) continue;
      out.push_back(std::move(d));
    }
    return out;
  }();
  return all;
}

// Runs `check` over every draw; it returns an empty string when the property holds, else the violation's values.
// Prints every violation with its scenario and returns how many there were.
int violations(const char* property, const std::function<std::string(const Drawn&)>& check) {
  int n = 0, checked = 0;
  for (const Drawn& d : draws()) {
    const std::string v = check(d);
    if (v == "-") continue;  // not applicable to this draw
    ++checked;
    if (v.empty()) continue;
    ++n;
    WARN(property << " violated: " << v << "\n  scenario: " << d.text());
  }
  std::ostringstream note;
  note << property << ": " << checked << " scenarios checked, " << n << " violations";
  WARN(note.str());
  CHECK(checked >= 100);
  return n;
}

std::string values(double before, double after) {
  std::ostringstream s;
  s.precision(9);
  s << before << " -> " << after;
  return s.str();
}

bool grew(double before, double after) { return after > before * (1 + kTolerance) + 1e-15; }

// The estimates of two variants of a draw (`set` applied with false, then with true).
template <class Set>
std::pair<model::Estimate, model::Estimate> variants(const Drawn& d, Set set) {
  model::Scenario a = d.scenario, b = d.scenario;
  set(a, false);
  set(b, true);
  return {model::evaluate(a), model::evaluate(b)};
}

}  // namespace

TEST_CASE("properties.mfu_at_most_one", "[properties]") {
  CHECK(violations("MFU <= 1", [](const Drawn& d) {
          const model::Estimate e = model::evaluate(d.scenario);
          if (!e.feasible) return std::string("-");
          return e.mfu <= 1.0 && e.hfu <= 1.0 ? std::string() : "MFU " + std::to_string(e.mfu) + ", HFU " + std::to_string(e.hfu);
        }) == 0);
}

TEST_CASE("properties.memory_non_decreasing_in_micro_batch", "[properties]") {
  CHECK(violations("memory non-decreasing in micro-batch", [](const Drawn& d) {
          model::Scenario twice = d.scenario;
          twice.training.micro_batch *= 2;
          const model::Estimate a = model::evaluate(d.scenario);
          const model::Estimate b = model::evaluate(twice);
          if (!timed(b)) return std::string("-");  // the batch no longer divides
          return b.memory_per_gpu_bytes * (1 + kTolerance) >= a.memory_per_gpu_bytes
                     ? std::string()
                     : "memory per GPU " + values(a.memory_per_gpu_bytes, b.memory_per_gpu_bytes) + " at micro-batch x2";
        }) == 0);
}

TEST_CASE("properties.full_recompute_never_faster_than_none", "[properties]") {
  CHECK(violations("full recompute never faster than none", [](const Drawn& d) {
          const auto [a, b] = variants(d, [](model::Scenario& s, bool full) {
            s.plan.recompute = full ? model::Recompute::full : model::Recompute::none;
          });
          if (!timed(a) || !timed(b)) return std::string("-");
          return grew(b.step_time_s, a.step_time_s) ? "step time none -> full " + values(a.step_time_s, b.step_time_s)
                                                    : std::string();
        }) == 0);
}

TEST_CASE("properties.step_time_non_increasing_in_each_link_bandwidth", "[properties]") {
  CHECK(violations("step time non-increasing in link bandwidth", [](const Drawn& d) {
          const model::Estimate base = model::evaluate(d.scenario);
          std::string out;
          for (double factor : {2.0, 16.0}) {
            model::Scenario up = d.scenario, node = d.scenario, wan = d.scenario;
            up.cluster.islands[0].gpu.scaleup.bytes_per_s *= factor;
            node.cluster.islands[0].node_network.bytes_per_s *= factor;
            wan.cluster.wan.bytes_per_s *= factor;
            const std::pair<const char*, const model::Scenario*> links[] = {
                {"scale-up", &up}, {"node network", &node}, {"WAN", &wan}};
            for (const auto& [name, s] : links) {
              const double t = model::evaluate(*s).step_time_s;
              if (grew(base.step_time_s, t))
                out += std::string(name) + " x" + std::to_string(static_cast<int>(factor)) + ": step time " +
                       values(base.step_time_s, t) + "; ";
            }
          }
          return out;
        }) == 0);
}

TEST_CASE("properties.tokens_per_s_non_decreasing_when_pure_dp_gpus_double", "[properties]") {
  CHECK(violations("tokens/s non-decreasing when pure-DP GPUs double", [](const Drawn& d) {
          const model::Scenario& s = d.scenario;
          if (s.plan.tp != 1 || s.plan.pp != 1 || s.plan.cp != 1 || s.plan.ep != 1) return std::string("-");
          // Twice the GPUs, each with the same work per step (the global batch doubles with them): the job's
          // tokens/s may not fall (the all-reduce grows only in latency and its (n-1)/n factor).
          model::Scenario twice = s;
          twice.cluster.islands[0].gpus *= 2;
          twice.training.global_batch *= 2;
          const model::Estimate a = model::evaluate(s);
          const model::Estimate b = model::evaluate(twice);
          if (a.reject_reason != model::RejectReason::none || b.reject_reason != model::RejectReason::none)
            return std::string("-");
          return grew(b.tokens_per_s, a.tokens_per_s) ? "tokens/s " + values(a.tokens_per_s, b.tokens_per_s) +
                                                            " at twice the GPUs and batch"
                                                      : std::string();
        }) == 0);
}

TEST_CASE("properties.fp8_never_slower_than_bf16_unless_warned", "[properties]") {
  CHECK(violations("fp8 never slower than bf16 without a named cost", [](const Drawn& d) {
          const auto [a, b] = variants(d, [](model::Scenario& s, bool fp8) {
            s.training.precision = fp8 ? model::Precision::fp8 : model::Precision::bf16;
          });
          if (!timed(a) || !timed(b)) return std::string("-");  // no fp8 on this GPU or stack
          if (!grew(a.step_time_s, b.step_time_s))  // and a faster fp8 plan carries neither warning
            return b.warnings & (model::bit(model::Warning::fp8_casts_outweigh_gemm_savings) |
                                 model::bit(model::Warning::fp8_hides_less_communication))
                       ? "fp8 not slower (" + values(a.step_time_s, b.step_time_s) + ") but warned"
                       : std::string();
          const std::uint32_t named = model::bit(model::Warning::fp8_casts_outweigh_gemm_savings) |
                                      model::bit(model::Warning::fp8_hides_less_communication);
          if (b.warnings & named) return std::string();
          return "step time bf16 -> fp8 " + values(a.step_time_s, b.step_time_s) + " without an fp8 warning";
        }) == 0);
}
