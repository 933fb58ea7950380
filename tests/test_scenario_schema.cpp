// The schema printed from the key table (src/scenario/scenario_keys.cpp) agrees with the enum tables and with
// docs/scenarios.md.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include "src/scenario/enum_names.hpp"
#include "src/scenario/scenario_schema.hpp"
#include "src/scenario/word_lists.hpp"

using namespace shardmeter::cli;
namespace m = shardmeter::model;

namespace {

std::string type_of(Section section, std::string_view key) {
  for (const KeySpec& k : section_keys(section))
    if (k.name == key) return k.type_text();
  return "";
}

template <class E>
std::string names() {
  const auto list = enum_name_list<E>();
  return join(list, " | ");
}

}  // namespace

TEST_CASE("schema enum types list exactly the names the parser accepts") {
  CHECK(type_of(Section::model, "ffn_type") == names<m::FfnType>());
  CHECK(type_of(Section::model, "norm") == names<m::NormType>());
  CHECK(type_of(Section::model, "position_embedding") == names<m::PositionEmbedding>());
  CHECK(type_of(Section::training, "precision") == names<m::Precision>());
  CHECK(type_of(Section::training, "optimizer") == names<m::Optimizer>());
  CHECK(type_of(Section::training, "grad_reduce_dtype") == names<GradReduceDtype>());
  CHECK(type_of(Section::plan, "sharding") == names<m::Sharding>());
  CHECK(type_of(Section::plan, "recompute") == names<m::Recompute>());
  CHECK(type_of(Section::plan, "attention") == names<m::AttentionKernel>());
  CHECK(type_of(Section::plan, "sync") == names<m::SyncMode>());
  CHECK(type_of(Section::plan, "batch_split") == names<m::BatchSplit>());
  CHECK(type_of(Section::diloco, "fast_islands") == names<m::DilocoFastIslands>());
}

TEST_CASE("docs/scenarios.md's schema is the generated one") {
  std::ifstream in(SHARDMETER_SOURCE_DIR "/docs/scenarios.md");
  std::stringstream doc;
  doc << in.rdbuf();
  // Regenerate with `make readme-schema`: the text of schema_markdown() between the markers in docs/scenarios.md.
  CHECK_THAT(doc.str(), Catch::Contains(schema_markdown()));
}
