// The scenario loader's plumbing: presets and overrides, defaults, inline GPUs, island overrides, nodes vs
// gpus, unit conversion at parse time, --set of nested keys and list indices, and deterministic bytes.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "model/spec/units.hpp"
#include "catalog_fixture.hpp"
#include "src/scenario/catalog.hpp"
#include "src/scenario/scenario_parse.hpp"
#include "src/planning/search_section.hpp"

using namespace shardmeter::cli;
namespace m = shardmeter::model;

namespace {

LoadedScenario load(const std::string& file, const std::vector<std::string>& sets = {}) {
  std::vector<Override> overrides;
  for (const std::string& s : sets) overrides.push_back(parse_override(s));
  return load_scenario(std::string(SHARDMETER_TEST_DATA_DIR) + "/" + file, overrides, shardmeter::test::shipped_catalog());
}

const m::IslandSpec& island(const LoadedScenario& l, int i) { return l.scenario.cluster.islands[static_cast<std::size_t>(i)]; }

}  // namespace

TEST_CASE("a preset supplies the model and explicit keys override it") {
  const LoadedScenario l = load("small.yaml");
  const m::ModelSpec& md = l.scenario.model;
  CHECK(l.name == "small");
  CHECK(md.layers == 32);
  CHECK(md.hidden == 4096);
  CHECK(md.heads == 32);
  CHECK(md.kv_heads == 8);
  CHECK(md.head_dim == 128);
  CHECK(md.ffn_hidden == 14336);
  CHECK(md.vocab == 128256);
  CHECK(md.seq_len == 4096);  // the scenario's 4096 over the preset's 8192
  CHECK(md.ffn_type == m::FfnType::swiglu);
  CHECK(md.norm == m::NormType::rmsnorm);
  CHECK(md.position_embedding == m::PositionEmbedding::rope);
  CHECK_FALSE(md.bias);
  CHECK_FALSE(md.tied_embeddings);
  CHECK_FALSE(md.dropout);
}

TEST_CASE("unset keys take the key table's defaults (equal to model/*_spec.hpp's)") {
  const m::Scenario s = load("small.yaml").scenario;
  CHECK(s.training.micro_batch == 1);
  CHECK(s.training.precision == m::Precision::bf16);
  CHECK(s.training.optimizer == m::Optimizer::adamw);
  CHECK(s.training.grad_reduce_bytes == 2);
  CHECK(s.plan.cp == 1);
  CHECK(s.plan.interleave == 1);
  CHECK_FALSE(s.plan.sequence_parallel);
  CHECK(s.plan.sharding == m::Sharding::none);
  CHECK(s.plan.recompute == m::Recompute::selective);
  CHECK(s.plan.attention == m::AttentionKernel::flash);
  CHECK(s.plan.sync == m::SyncMode::synchronous);
  CHECK(s.plan.diloco.inner_steps == 100);
  CHECK(s.runtime.fragmentation_fraction == 0.07);
  CHECK(s.runtime.runtime_overhead_bytes == 1e9);
  CHECK(s.goodput.enabled);
  CHECK(s.goodput.restart_s == 600);
  CHECK_FALSE(s.cluster.has_wan);
  CHECK(s.cluster.island_entries == 1);
  CHECK(s.cluster.islands[0].count == 1);
}

TEST_CASE("derived model defaults: kv_heads, head_dim, and ffn_hidden per MLP type") {
  const std::vector<std::string> base = {"model={layers: 2, hidden: 4096, heads: 32, vocab: 1000, seq_len: 128}",
                                         "plan.tp=1", "plan.pp=1", "training.global_batch=16"};
  const m::ModelSpec gelu = load("small.yaml", base).scenario.model;
  CHECK(gelu.kv_heads == 32);
  CHECK(gelu.head_dim == 128);
  CHECK(gelu.ffn_hidden == 4 * 4096);
  auto with_swiglu = base;
  with_swiglu.push_back("model.ffn_type=swiglu");
  // 8 * 4096 / 3 = 10922.7, rounded up to a multiple of 256: Llama-2-7B's 11008.
  CHECK(load("small.yaml", with_swiglu).scenario.model.ffn_hidden == 11008);
}

TEST_CASE("catalog GPU values are converted to SI once") {
  const LoadedScenario l = load("small.yaml");
  const m::IslandSpec& isl = island(l, 0);
  CHECK(isl.gpu.name.view() == "h100-sxm");
  CHECK(isl.gpu.peak_flops_per_s == Approx(989e12));
  CHECK(isl.gpu.peak_fp8_flops_per_s == Approx(1979e12));
  CHECK(isl.gpu.hbm_bytes == Approx(80.0 * 1024 * 1024 * 1024));  // hbm_gib: 80
  CHECK(isl.gpu.hbm_bytes_per_s == Approx(3.35e12));
  CHECK(isl.gpu.scaleup.bytes_per_s == Approx(450e9));  // GB/s per GPU
  CHECK(isl.gpu.scaleup.type.view() == "nvlink4");
  CHECK(isl.gpu.scaleup.efficiency == Approx(shardmeter::test::shipped_catalog().links.at("nvlink4").efficiency));
  CHECK(isl.gpu.kernel_overhead_s == Approx(4e-6));
  CHECK(isl.gpus_per_node == 8);
  CHECK(isl.node_network.bytes_per_s == Approx(400e9));  // 3200 Gbit/s per node
  CHECK(isl.node_network.type.view() == "ib-ndr");
  CHECK(isl.price_usd_per_gpu_hour == Approx(1.90));
}

TEST_CASE("island overrides, nodes, count, spot, WAN and link overrides") {
  const LoadedScenario l = load("multi_island.yaml");
  const m::Scenario& s = l.scenario;
  REQUIRE(s.cluster.island_entries == 2);
  const m::IslandSpec& east = island(l, 0);
  CHECK(east.name.view() == "east");
  CHECK(east.gpus == 16);                                  // nodes: 2 x 8 GPUs per node
  CHECK(east.node_network.bytes_per_s == Approx(200e9));   // node_network_gbps 1600 -> 200e9 bytes/s
  CHECK(east.price_usd_per_gpu_hour == Approx(2.5));
  const m::IslandSpec& west = island(l, 1);
  CHECK(west.gpus == 8);
  CHECK(west.count == 2);
  CHECK(west.spot);
  CHECK(west.price_usd_per_gpu_hour == Approx(0.57));      // a100-sxm-80gb spot price
  CHECK(west.gpu.hbm_bytes == Approx(72.0 * 1024 * 1024 * 1024));
  CHECK(west.gpu.gemm_efficiency == Approx(0.5));
  CHECK(west.gpu.kernel_overhead_s == Approx(6e-6));
  CHECK(west.gpu.attention_efficiency == Approx(shardmeter::test::shipped_catalog().gpus.at("a100-sxm-80gb").gpu.attention_efficiency));
  CHECK(s.cluster.total_islands() == 3);
  CHECK(s.cluster.total_gpus() == 32);

  REQUIRE(s.cluster.has_wan);
  CHECK(s.cluster.wan.bytes_per_s == Approx(12.5e9));      // 100 Gbit/s
  CHECK(s.cluster.wan.latency_s == Approx(0.035));
  CHECK(s.cluster.wan.egress_usd_per_byte == Approx(0.02 / 1e9));
  CHECK(s.cluster.wan.efficiency == Approx(0.7));
  REQUIRE(s.cluster.link_overrides == 1);
  const m::LinkOverride& o = s.cluster.links[0];
  CHECK(o.from == 0);
  CHECK(o.to == 1);
  CHECK(o.link.bytes_per_s == Approx(50e9));               // 400 Gbit/s
  CHECK(o.link.latency_s == Approx(0.035));                // inherited from cluster.wan
  CHECK(&s.cluster.link(1, 0) == &o.link);

  CHECK(s.training.grad_reduce_bytes == 4);
  CHECK(s.training.tokens == Approx(2e9));
  CHECK(s.plan.diloco.inner_steps == 50);
  CHECK(s.runtime.runtime_overhead_bytes == Approx(2e9));
  CHECK(s.goodput.failures_per_gpu_hour == Approx(0.48 / (24 * 8)));  // per node-day, first island's 8 GPUs/node
  // search: is checked with the rest of the scenario and read in full by the search job (test_search_section.cpp)
  const SearchSection search = read_search_section(l.doc, shardmeter::test::shipped_catalog(), s);
  CHECK(search.present);
  REQUIRE(search.axes.size() == 2);
  CHECK(search.axes[1].key == "cluster.islands.1.count");
  CHECK(search.axes[1].values == std::vector<std::string>{"1", "2", "3"});
  REQUIRE(search.objectives.size() == 2);
  CHECK(search.objectives[1].name() == "wall_clock_days");
}

TEST_CASE("an inline GPU map") {
  const LoadedScenario l = load("small.yaml", {"cluster.islands.0.gpu={name: my-gpu, bf16_tflops: 500, hbm_gib: 96, "
                                               "hbm_tbps: 4, scaleup_gbps: 100, scaleup_link: pcie5, "
                                               "node_network_gbps: 800, scaleout_link: roce, gpus_per_node: 4}"});
  const m::IslandSpec& isl = island(l, 0);
  CHECK(isl.gpu.name.view() == "my-gpu");
  CHECK(isl.gpu.peak_flops_per_s == Approx(500e12));
  CHECK(isl.gpu.hbm_bytes == Approx(96.0 * 1024 * 1024 * 1024));
  CHECK(isl.gpu.hbm_bytes_per_s == Approx(4e12));
  CHECK(isl.gpu.scaleup.bytes_per_s == Approx(100e9));
  CHECK(isl.gpu.scaleup.efficiency == Approx(shardmeter::test::shipped_catalog().links.at("pcie5").efficiency));
  CHECK(isl.gpus_per_node == 4);
  CHECK(isl.node_network.bytes_per_s == Approx(100e9));
  CHECK(isl.gpu.gemm_efficiency == m::GpuSpec{}.gemm_efficiency);  // unset: the model's default
}

TEST_CASE("overrides reach nested keys and list indices, creating maps and appending list entries") {
  const LoadedScenario l = load("small.yaml", {"plan.diloco.outer_bits=8", "cluster.islands.0.gpus=32",
                                               "cluster.islands.1={gpu: h100-sxm, nodes: 1}", "cluster.wan={bandwidth_gbps: 10, latency_ms: 20}",
                                               "runtime.fragmentation_fraction=0.1",
                                               "training.tokens=300e9", "plan.sharding=zero1"});
  const m::Scenario& s = l.scenario;
  CHECK(s.plan.diloco.outer_bits == 8);
  CHECK(s.cluster.islands[0].gpus == 32);
  REQUIRE(s.cluster.island_entries == 2);
  CHECK(s.cluster.islands[1].gpus == 8);
  CHECK(s.cluster.islands[1].name.view() == "island1");
  CHECK(s.runtime.fragmentation_fraction == Approx(0.1));
  CHECK(s.training.tokens == Approx(300e9));
  CHECK(s.plan.sharding == m::Sharding::zero1);
  CHECK(l.doc.overridden.at("plan.diloco") == "plan.diloco.outer_bits=8");   // created map
  CHECK(locate(l.doc, "cluster.islands.0.gpus").str() == "--set cluster.islands.0.gpus=32");
  CHECK(locate(l.doc, "plan.tp").str() == std::string(SHARDMETER_TEST_DATA_DIR) + "/small.yaml:16:7");
  // A key the document lacks is located at its nearest enclosing key.
  CHECK(locate(l.doc, "plan.cp").str() == std::string(SHARDMETER_TEST_DATA_DIR) + "/small.yaml:16:3");
}

TEST_CASE("spot without a known spot price is an error at the spot key") {
  CHECK_THROWS_WITH(load("small.yaml", {"cluster.islands.0.gpu=h200-sxm", "cluster.islands.0.spot=true"}),
                    "--set cluster.islands.0.spot=true: cluster.islands.0.spot = true but no spot price is known for GPU "
                    "h200-sxm; set cluster.islands.0.spot_price_usd_per_gpu_hour");
  CHECK(load("small.yaml", {"cluster.islands.0.gpu=h200-sxm", "cluster.islands.0.spot=true",
                            "cluster.islands.0.spot_price_usd_per_gpu_hour=2.1"})
            .scenario.cluster.islands[0]
            .price_usd_per_gpu_hour == Approx(2.1));
}

TEST_CASE("scenarios load to identical bytes, padding included") {
  const m::Scenario a = load("multi_island.yaml").scenario;
  const m::Scenario b = load("multi_island.yaml").scenario;
  CHECK(std::memcmp(&a, &b, sizeof a) == 0);
}

TEST_CASE("document copies are deep: overriding a copy leaves the original and its positions intact") {
  const ScenarioDocument original = read_scenario_document(std::string(SHARDMETER_TEST_DATA_DIR) + "/small.yaml",
                                                           {parse_override("plan.pp=1")});
  ScenarioDocument copy = original;
  apply_override(copy, parse_override("plan.tp=8"));
  CHECK(scalar_at(original, "plan.tp") == "4");
  CHECK(scalar_at(copy, "plan.tp") == "8");
  CHECK(scalar_at(copy, "plan.pp") == "1");  // earlier overrides are replayed
  CHECK(locate(copy, "training.global_batch").line == 7);
  ScenarioDocument assigned;
  assigned = copy;
  CHECK(scalar_at(assigned, "plan.tp") == "8");
}

TEST_CASE("the shipped scenarios load and pass the consistency checks") {
  for (const char* file : {"default.yaml", "gpt3-175b-sc21.yaml"}) {
    INFO(file);
    const LoadedScenario l = load_scenario(std::string(SHARDMETER_SOURCE_DIR "/scenarios/") + file, {}, shardmeter::test::shipped_catalog());
    CHECK(l.scenario.cluster.total_gpus() > 0);
  }
}

TEST_CASE("plan.stack selects the catalog's efficiency set for that stack; an island's own efficiency wins") {
  // scenarios/gpus.yaml, h100-sxm: efficiency.stacks.torch_fsdp1.gemm 0.667, contention_scale 2.0 (docs/model.md §6.7).
  const m::GpuSpec& base = shardmeter::test::shipped_catalog().gpus.at("h100-sxm").gpu;
  const LoadedScenario fsdp1 = load("small.yaml", {"plan.stack=torch_fsdp1"});
  CHECK(island(fsdp1, 0).gpu.gemm_efficiency == Approx(0.667));
  CHECK(island(fsdp1, 0).gpu.contention_scale == Approx(2.0));
  const LoadedScenario deepspeed = load("small.yaml", {"plan.stack=deepspeed"});  // no set of its own: the base one
  CHECK(island(deepspeed, 0).gpu.gemm_efficiency == Approx(base.gemm_efficiency));
  const LoadedScenario own = load("small.yaml", {"plan.stack=torch_fsdp1", "cluster.islands.0.efficiency.gemm=0.5"});
  CHECK(island(own, 0).gpu.gemm_efficiency == Approx(0.5));
  CHECK_THROWS_WITH(load("small.yaml", {"plan.stack=megatron-lm"}), Catch::Contains("plan.stack"));
}

TEST_CASE("plan.recompute_layers needs recompute: full, and the error names the key") {
  CHECK(island(load("small.yaml", {"plan.recompute=full", "plan.recompute_layers=4"}), 0).gpus > 0);
  CHECK_THROWS_WITH(load("small.yaml", {"plan.recompute=selective", "plan.recompute_layers=4"}),
                    Catch::Contains("recompute_layers") && Catch::Contains("needs plan.recompute: full"));
  CHECK_THROWS_WITH(load("small.yaml", {"plan.recompute_layers=-1"}), Catch::Contains("recompute_layers"));
}

TEST_CASE("issue 11: an island's price_model picks the catalog price it pays") {
  // The shipped default scenario (512 H100): on-demand $1.90, spot $1.16, committed 1y 0.80 x 1.90 = $1.52 /
  // 3y 0.60 x 1.90 = $1.14 (scenarios/gpus.yaml).
  const std::string path = SHARDMETER_SOURCE_DIR "/scenarios/default.yaml";
  const auto with = [&](const std::string& set) {
    return load_scenario(path, {parse_override(set)}, shardmeter::test::shipped_catalog());
  };
  CHECK(island(with("cluster.islands.0.price_model=on_demand"), 0).price_usd_per_gpu_hour == Approx(1.90));
  const LoadedScenario spot = with("cluster.islands.0.price_model=spot");
  CHECK(island(spot, 0).spot);
  CHECK(island(spot, 0).price_usd_per_gpu_hour == Approx(1.16));
  CHECK(island(with("cluster.islands.0.price_model=committed_1y"), 0).price_usd_per_gpu_hour == Approx(1.52));
  CHECK(island(with("cluster.islands.0.price_model=committed_3y"), 0).price_usd_per_gpu_hour == Approx(1.14));
  CHECK_THROWS_WITH(with("cluster.islands.0.price_model=reserved"),
                    Catch::Contains("price_model") && Catch::Contains("is not one of on_demand, spot, committed_1y"));
  CHECK_THROWS_WITH(load_scenario(path, {parse_override("cluster.islands.0.price_model=committed_1y"),
                                         parse_override("cluster.islands.0.spot=true")},
                                  shardmeter::test::shipped_catalog()),
                    Catch::Contains("contradicts"));
}
