#include <catch2/catch.hpp>

#include "model/kernels/parameters.hpp"
#include "model_fixtures.hpp"

using namespace shardmeter::model;
using shardmeter::test::gpt3_175b;

namespace {
ModelSpec llama3(int layers, int hidden, int heads, int kv_heads, int ffn) {
  ModelSpec m;
  m.layers = layers; m.hidden = hidden; m.heads = heads; m.kv_heads = kv_heads; m.head_dim = hidden / heads;
  m.ffn_hidden = ffn; m.vocab = 128256; m.seq_len = 8192;
  m.ffn_type = FfnType::swiglu; m.norm = NormType::rmsnorm; m.position_embedding = PositionEmbedding::rope;
  m.bias = false; m.tied_embeddings = false; m.dropout = false;
  return m;
}
}  // namespace

TEST_CASE("GPT-3 175B has 12Lh^2 + 13Lh + Vh + sh parameters (Narayanan et al. 2021)") {
  const ParameterCounts p = count_parameters(gpt3_175b());
  const double h = 12288, L = 96;
  // Worked by hand: 12*96*12288^2 + 13*96*12288 + 51200*12288 + 2048*12288 + 2*12288 (final LayerNorm)
  CHECK(p.total == Approx(12 * L * h * h + 13 * L * h + 51200 * h + 2048 * h + 2 * h).epsilon(1e-12));
  CHECK(p.total / 1e9 == Approx(174.6).margin(0.05));
}

TEST_CASE("Llama-3 parameter counts match the published sizes") {
  CHECK(count_parameters(llama3(32, 4096, 32, 8, 14336)).total / 1e9 == Approx(8.03).margin(0.005));
  CHECK(count_parameters(llama3(80, 8192, 64, 8, 28672)).total / 1e9 == Approx(70.55).margin(0.01));
  CHECK(count_parameters(llama3(126, 16384, 128, 8, 53248)).total / 1e9 == Approx(405.85).margin(0.05));
}
