#pragma once
// The hand-built specs of every test (tests/support/README.md): no files, no catalog, numbers written out so a
// reader can check them. This is the only place a test GPU, model or island is defined; the ctest
// tests.fixtures_defined_once fails when one of these names is defined anywhere else under tests/.
#include "model/spec/scenario.hpp"

namespace shardmeter::test {

inline model::ModelSpec gpt3_175b() {
  model::ModelSpec m;
  m.layers = 96; m.hidden = 12288; m.heads = 96; m.kv_heads = 96; m.head_dim = 128;
  m.ffn_hidden = 4 * 12288; m.vocab = 51200; m.seq_len = 2048;
  m.ffn_type = model::FfnType::gelu; m.norm = model::NormType::layernorm;
  m.position_embedding = model::PositionEmbedding::learned;
  m.bias = true; m.tied_embeddings = true; m.dropout = true;
  return m;
}

inline model::ModelSpec llama3_8b() {
  model::ModelSpec m;
  m.layers = 32; m.hidden = 4096; m.heads = 32; m.kv_heads = 8; m.head_dim = 128;
  m.ffn_hidden = 14336; m.vocab = 128256; m.seq_len = 8192;
  m.ffn_type = model::FfnType::swiglu; m.norm = model::NormType::rmsnorm;
  m.position_embedding = model::PositionEmbedding::rope;
  m.bias = false; m.tied_embeddings = false; m.dropout = false;
  return m;
}

// A100-SXM4-80GB: 312 TFLOP/s bf16, 80 GiB at 2.039 TB/s, NVLink3 300 GB/s per GPU, DGX node 8x200 Gb/s HDR.
// Datasheet figures as in the shipped catalog (scenarios/gpus.yaml `a100-sxm-80gb`: hbm_gib 80, hbm_tbps 2.039,
// scaleup_gbps 300) and NVLink3's measured ring efficiency 0.78 (scenarios/links.yaml, docs/model.md §3.4). The
// link latency (2 us) and the price are round test values, not catalog figures (the catalog's are 3 us and
// $1.79): tests worked by hand below rely on them.
inline model::GpuSpec a100_80gb() {
  model::GpuSpec g;
  g.name.assign("a100-sxm-80gb");
  g.peak_flops_per_s = 312e12;
  g.hbm_bytes = 80.0 * 1024 * 1024 * 1024;
  g.hbm_bytes_per_s = 2.039e12;
  g.scaleup = model::LinkSpec{model::FixedName("nvlink3"), 300e9, 0.78, 2e-6};
  g.scaleup_domain_gpus = 8;
  g.price_usd_per_gpu_hour = 1.50;
  return g;
}

// H100-SXM: 989 / 1979 TFLOP/s bf16 / fp8, 80 GiB at 3.35 TB/s, NVLink4 450 GB/s (scenarios/gpus.yaml `h100-sxm`);
// NVLink4 efficiency 0.8, the low end of the measured 0.80-0.82 (docs/model.md §3.4); price a round test value.
inline model::GpuSpec h100_sxm() {
  model::GpuSpec g = a100_80gb();
  g.name.assign("h100-sxm");
  g.peak_flops_per_s = 989e12;
  g.peak_fp8_flops_per_s = 1979e12;
  g.hbm_bytes_per_s = 3.35e12;
  g.scaleup = model::LinkSpec{model::FixedName("nvlink4"), 450e9, 0.8, 2e-6};
  g.price_usd_per_gpu_hour = 2.50;
  return g;
}

inline model::IslandSpec island(const model::GpuSpec& gpu, int gpus, double node_gbit_per_s = 1600) {
  model::IslandSpec is;
  is.name.assign("island");
  is.gpu = gpu;
  is.gpus = gpus;
  is.gpus_per_node = 8;
  is.count = 1;
  is.node_network = model::LinkSpec{model::FixedName("ib"), node_gbit_per_s * 1e9 / 8.0, 0.8, 5e-6};
  is.price_usd_per_gpu_hour = gpu.price_usd_per_gpu_hour;
  return is;
}

// GPT-3 175B on 1536 A100s, tp 8, pp 12: the example scenario.
inline model::Scenario gpt3_on_a100(int gpus = 1536, int tp = 8, int pp = 12) {
  model::Scenario s{};
  s.model = gpt3_175b();
  s.training.global_batch = 1536;
  s.training.micro_batch = 1;
  s.training.tokens = 300e9;
  s.cluster.islands[0] = island(a100_80gb(), gpus);
  s.cluster.island_entries = 1;
  s.plan.tp = tp;
  s.plan.pp = pp;
  s.plan.sequence_parallel = true;
  s.plan.recompute = model::Recompute::selective;
  return s;
}

// Llama-3-8B with FSDP on one or more 8-GPU nodes.
inline model::Scenario llama8b_fsdp(const model::GpuSpec& gpu, int gpus, int micro_batch = 2) {
  model::Scenario s{};
  s.model = llama3_8b();
  s.training.global_batch = static_cast<std::int64_t>(gpus) * micro_batch * 2;
  s.training.micro_batch = micro_batch;
  s.training.tokens = 1e12;
  s.cluster.islands[0] = island(gpu, gpus, 3200);
  s.cluster.island_entries = 1;
  s.plan.sharding = model::Sharding::fsdp;
  s.plan.recompute = model::Recompute::full;
  return s;
}

// Llama-3-8B on 8 H100s, DP 8, ZeRO-1, megatron_te, full recompute, one 8192-token sequence per micro-batch (the shape
// of the DGX Cloud Llama 3.1 8B recipe, without CP): the fp8 tests' base scenario.
inline model::Scenario llama8b_zero1(model::Precision precision, bool fp8_params) {
  model::Scenario s{};
  s.model = llama3_8b();
  s.training.global_batch = 64;
  s.training.micro_batch = 1;
  s.training.tokens = 1e9;
  s.training.precision = precision;
  s.training.fp8_params = fp8_params;
  s.cluster.islands[0] = island(h100_sxm(), 8, 3200);
  s.cluster.island_entries = 1;
  s.plan.sharding = model::Sharding::zero1;
  s.plan.recompute = model::Recompute::full;
  s.plan.stack = model::Stack::megatron_te;
  return s;
}

}  // namespace shardmeter::test
