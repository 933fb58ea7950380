// `shardmeter list gpus|models|links [--json] [--data-dir DIR]`: browse the shipped catalogs — each GPU type with
// its key numbers, price and calibration status; each model preset with its dimensions and parameter count; each
// link type with its efficiency and latency.
#include <ostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "model/kernels/parameters.hpp"
#include "model/spec/units.hpp"
#include "src/cli/command_line.hpp"
#include "src/cli/commands.hpp"
#include "src/scenario/calibration_status.hpp"
#include "src/scenario/enum_names.hpp"
#include "src/scenario/parse_model.hpp"
#include "src/text/text_table.hpp"

namespace shardmeter::cli {

namespace {

namespace m = shardmeter::model;

constexpr Align L = Align::left, R = Align::right;

std::string num(double v, int decimals = 0) { return fmt::format("{:.{}f}", v, decimals); }

void list_gpus(const Catalog& catalog, bool json, std::ostream& out) {
  std::vector<TextColumn> cols = {{"GPU", L, {}},        {"family", L, {}},      {"calibration", L, {}},
                                  {"bf16 TFLOP/s", R, {}}, {"fp8 TFLOP/s", R, {}}, {"HBM GiB", R, {}},
                                  {"HBM TB/s", R, {}},   {"scale-up GB/s", R, {}}, {"domain", R, {}},
                                  {"GPUs/node", R, {}},  {"net Gbit/s/node", R, {}}, {"$/GPU-h", R, {}},
                                  {"spot $/GPU-h", R, {}}};
  nlohmann::json j = nlohmann::json::array();
  for (const auto& [name, e] : catalog.gpus) {
    const m::GpuSpec& g = e.gpu;
    const std::string status = calibration_coverage(catalog, name);
    // Per stack: the status a plan on that stack is shown with (calibration_stacks limits a fit to some stacks).
    nlohmann::json by_stack = nlohmann::json::object();
    for (const auto& nv : m::enum_names<m::Stack>())
      by_stack[std::string(nv.name)] = calibration_name(calibration_of(catalog, name, nv.value));
    nlohmann::json stacks = nlohmann::json(nullptr);
    if (!e.calibration_stacks.empty()) {
      stacks = nlohmann::json::array();
      for (const m::Stack st : e.calibration_stacks) stacks.push_back(m::enum_name(st));
    }
    const std::vector<std::string> cells = {
        name, e.family, status, num(g.peak_flops_per_s / 1e12), g.peak_fp8_flops_per_s > 0 ? num(g.peak_fp8_flops_per_s / 1e12) : "-",
        num(g.hbm_bytes / m::kGiB), num(g.hbm_bytes_per_s / 1e12, 2), num(g.scaleup.bytes_per_s / 1e9),
        std::to_string(g.scaleup_domain_gpus), std::to_string(e.gpus_per_node), num(e.node_network_gbps),
        num(g.price_usd_per_gpu_hour, 2), g.spot_price_usd_per_gpu_hour > 0 ? num(g.spot_price_usd_per_gpu_hour, 2) : "-"};
    for (std::size_t c = 0; c < cells.size(); ++c) cols[c].cells.push_back(cells[c]);
    j.push_back({{"name", name}, {"family", e.family}, {"calibration", e.calibration},
                 {"calibration_stacks", stacks}, {"calibration_by_stack", by_stack},
                 {"bf16_tflops", g.peak_flops_per_s / 1e12}, {"fp8_tflops", g.peak_fp8_flops_per_s / 1e12},
                 {"hbm_gib", g.hbm_bytes / m::kGiB}, {"hbm_tbps", g.hbm_bytes_per_s / 1e12},
                 {"scaleup_gbps", g.scaleup.bytes_per_s / 1e9}, {"scaleup_domain_gpus", g.scaleup_domain_gpus},
                 {"gpus_per_node", e.gpus_per_node}, {"node_network_gbps", e.node_network_gbps},
                 {"price_usd_per_gpu_hour", g.price_usd_per_gpu_hour},
                 {"spot_price_usd_per_gpu_hour", g.spot_price_usd_per_gpu_hour}});
  }
  if (json) {
    out << j.dump(2) << "\n";
    return;
  }
  out << render_table(cols)
      << "\ncalibration: fitted = constants fitted to published runs of this type; family = fitted to runs of another\n"
         "type of its family; uncalibrated = no published run, figures extrapolated; \"S only\" = so on stack S\n"
         "(plan.stack), uncalibrated on every other stack (docs/accuracy.md).\n"
         "Sources of every number: " << catalog.dir << "/gpus.yaml\n";
}

void list_models(const Catalog& catalog, bool json, std::ostream& out) {
  std::vector<TextColumn> cols = {{"preset", L, {}}, {"layers", R, {}}, {"hidden", R, {}}, {"heads", R, {}},
                                  {"KV heads", R, {}}, {"FFN", R, {}},  {"FFN type", L, {}}, {"vocab", R, {}},
                                  {"seq", R, {}},   {"parameters", R, {}}, {"published", R, {}}};
  nlohmann::json j = nlohmann::json::array();
  for (const std::string& name : catalog.presets.names()) {
    const PresetInfo& info = catalog.presets.get(name).info;
    const m::ModelSpec md = preset_model(catalog, name, scenario_keys());
    const double params_b = m::count_parameters(md).total / 1e9;
    const std::vector<std::string> cells = {
        name, std::to_string(md.layers), std::to_string(md.hidden), std::to_string(md.heads), std::to_string(md.kv_heads),
        std::to_string(md.ffn_hidden), std::string(enum_name(md.ffn_type)), std::to_string(md.vocab),
        std::to_string(md.seq_len), fmt::format("{:.2f} B", params_b),
        info.published_params_b > 0 ? fmt::format("{:g} B", info.published_params_b) : "-"};
    for (std::size_t c = 0; c < cells.size(); ++c) cols[c].cells.push_back(cells[c]);
    j.push_back({{"name", name}, {"layers", md.layers}, {"hidden", md.hidden}, {"heads", md.heads},
                 {"kv_heads", md.kv_heads}, {"ffn_hidden", md.ffn_hidden}, {"ffn_type", std::string(enum_name(md.ffn_type))},
                 {"vocab", md.vocab}, {"seq_len", md.seq_len}, {"parameters_b", params_b},
                 {"published_params_b", info.published_params_b}, {"source", info.source}});
  }
  if (json) {
    out << j.dump(2) << "\n";
    return;
  }
  out << render_table(cols) << "\nparameters: counted by ShardMeter (docs/model.md); published: the source's figure. "
      << "Use one with model.preset: NAME; sources in " << catalog.dir << "/models/\n";
}

void list_links(const Catalog& catalog, bool json, std::ostream& out) {
  std::vector<TextColumn> cols = {{"link", L, {}}, {"efficiency", R, {}}, {"latency µs", R, {}}, {"source", L, {}}};
  nlohmann::json j = nlohmann::json::array();
  for (const auto& [name, link] : catalog.links) {
    const std::vector<std::string> cells = {name, num(link.efficiency, 2), num(link.latency_s * 1e6, 1), link.source};
    for (std::size_t c = 0; c < cells.size(); ++c) cols[c].cells.push_back(cells[c]);
    j.push_back({{"name", name}, {"efficiency", link.efficiency}, {"latency_us", link.latency_s * 1e6},
                 {"source", link.source}});
  }
  if (json) {
    out << j.dump(2) << "\n";
    return;
  }
  out << render_table(cols);
}

}  // namespace

int run_list(const std::vector<std::string>& args, std::ostream& out) {
  CommandLine line(*find_command("list"));
  line.add(SharedOption::data_dir).add(SharedOption::json);
  line.parse(args);
  if (line.wants_help()) {
    line.print_help(out);
    return 0;
  }
  const std::string what = line.single_positional("WHAT", "gpus, models or links");
  if (what != "gpus" && what != "models" && what != "links")
    throw line.usage("lists gpus, models or links, not '" + what + "'");
  const Catalog catalog = load_catalog(line.data_dir());
  if (what == "gpus") list_gpus(catalog, line.json(), out);
  else if (what == "models") list_models(catalog, line.json(), out);
  else list_links(catalog, line.json(), out);
  return 0;
}

}  // namespace shardmeter::cli
