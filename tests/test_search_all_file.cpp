// `search --all` end to end, in-process as `shardmeter search` runs it: /all holds every feasible candidate, each
// row exactly what the model gives for its candidate (every column, re-derived here from the space), across many
// whole chunks deflated by the writer's own encoder and the last partial chunk HDF5 filters.
#include <catch2/catch.hpp>

#include <atomic>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <H5Cpp.h>

#include "catalog_fixture.hpp"
#include "model/evaluate.hpp"
#include "results/files/hdf5_reader.hpp"
#include "results/files/row_layout.hpp"
#include "src/planning/search_job.hpp"
#include "src/planning/search_section.hpp"
#include "src/planning/search_space.hpp"
#include "tests/results_test_points.hpp"

using namespace shardmeter;
using namespace shardmeter::cli;

TEST_CASE("search --all: /all rows read back equal to the model's estimate of each feasible candidate",
          "[search_all]") {
  // search_small.yaml with a wider GPU-count axis: 3 * 64 * 3 * 2 * 2 * 3 = 6,912 candidates, 464 of them
  // feasible, so /all spans whole chunks (the writer's encoder) and a partial one (HDF5's filter).
  std::ifstream in(SHARDMETER_TEST_DATA_DIR "/search_small.yaml");
  std::stringstream text;
  text << in.rdbuf();
  std::string yaml = text.str();
  const std::string axis = "cluster.islands.0.gpus: 8:64:x2";
  REQUIRE(yaml.find(axis) != std::string::npos);
  yaml.replace(yaml.find(axis), axis.size(), "cluster.islands.0.gpus: 8:512:+8");

  const test::ScratchDir dir;
  SearchJobOptions o;
  o.scenario_path = "search_small_wide.yaml";
  o.scenario_text = yaml;
  o.method = search::Method::exhaustive;
  o.output_h5 = (dir / "front.h5").string();
  o.write_all = true;
  o.threads = 2;
  std::atomic<bool> stop{false};
  const SearchJobResult job = run_search_job(o, test::shipped_catalog(), stop);
  REQUIRE(job.result.counts.space_size == 6912);

  const results::Table all = results::read_all(dir / "front.h5");
  CHECK(all.rows.size() == job.info.feasible);
  {
    H5::H5File file((dir / "front.h5").string(), H5F_ACC_RDONLY);
    hsize_t chunk = 0;
    file.openDataSet("all").getCreatePlist().getChunk(1, &chunk);
    REQUIRE(all.rows.size() > 2 * chunk);
    REQUIRE(all.rows.size() % chunk != 0);
  }

  const SearchSection section = read_search_section(job.scenario.doc, test::shipped_catalog(), job.scenario.scenario);
  const search::Space space = build_search_space(job.scenario, section, test::shipped_catalog());
  std::vector<std::string> axes;
  for (int a = 0; a < space.axis_count(); ++a) axes.push_back(space.axis(a).name);
  const results::RowLayout layout(max_island_entries(space), axes, longest_label(space));
  REQUIRE(all.columns == layout.column_names());

  std::set<std::int64_t> seen;
  for (const results::Row& row : all.rows) {
    const auto index = static_cast<std::uint64_t>(results::integer(row, "index"));
    INFO("candidate " << index);
    CHECK(seen.insert(static_cast<std::int64_t>(index)).second);
    const model::Scenario scenario = space.scenario(index);
    const model::Estimate estimate = model::evaluate(scenario);
    CHECK(estimate.feasible);
    const results::Row expected = layout.row(results::PlanPoint{scenario, estimate, index, space.labels(index)});
    for (const std::string& c : all.columns) {
      INFO("column " << c);
      CHECK(row.at(c) == expected.at(c));
    }
  }
  // The front is among them.
  for (const results::PlanPoint& p : job.front) CHECK(seen.count(static_cast<std::int64_t>(p.index)) == 1);
}
