// `search --all` end to end, in-process as `shardmeter search` runs it: /all holds every feasible candidate, each
// row exactly what the model gives for its candidate (every column, re-derived here from the space), across many
// whole chunks deflated by the writer's own encoder and the last partial chunk HDF5 filters.
#include <catch2/catch.hpp>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <H5Cpp.h>
#include <tbb/task_arena.h>

#include "catalog_fixture.hpp"
#include "model/job/evaluate.hpp"
#include "results/files/hdf5_reader.hpp"
#include "results/files/hdf5_writer.hpp"
#include "results/files/row_layout.hpp"
#include "src/planning/search_job.hpp"
#include "src/planning/search_section.hpp"
#include "src/planning/search_space.hpp"
#include "search/cursor.hpp"
#include "search/search.hpp"
#include "tests/results_test_points.hpp"

using namespace shardmeter;
using namespace shardmeter::cli;

namespace {

// search_small.yaml with a wider GPU-count axis: 3 * 64 * 3 * 2 * 2 * 3 = 6,912 candidates, 468 of them feasible (464 before the allocator reserve was charged on the transient allocations only, docs/model.md §7.8).
std::string wide_search_yaml() {
  std::ifstream in(SHARDMETER_TEST_DATA_DIR "/search_small.yaml");
  std::stringstream text;
  text << in.rdbuf();
  std::string yaml = text.str();
  const std::string axis = "cluster.islands.0.gpus: 8:64:x2";
  REQUIRE(yaml.find(axis) != std::string::npos);
  yaml.replace(yaml.find(axis), axis.size(), "cluster.islands.0.gpus: 8:512:+8");
  return yaml;
}

// /all as the file stores it: every row's bytes in the file's (little-endian, packed) compound type.
std::vector<unsigned char> raw_all(const std::filesystem::path& path) {
  H5::H5File file(path.string(), H5F_ACC_RDONLY);
  const H5::DataSet all = file.openDataSet("all");
  const H5::CompType type = all.getCompType();
  hsize_t rows = 0;
  all.getSpace().getSimpleExtentDims(&rows);
  std::vector<unsigned char> bytes(rows * type.getSize());
  if (rows > 0) all.read(bytes.data(), type);
  return bytes;
}

// An exhaustive `--all` search of `yaml` into `out` on `threads` threads.
SearchJobOptions all_rows_search(const std::string& yaml, const std::filesystem::path& out, int threads) {
  SearchJobOptions o;
  o.scenario_path = "search_small_wide.yaml";
  o.scenario_text = yaml;
  o.method = search::Method::exhaustive;
  o.output_h5 = out.string();
  o.write_all = true;
  o.threads = threads;
  return o;
}

}  // namespace

TEST_CASE("search --all: the rows packed on the search's workers are byte for byte those packed from PlanPoints",
          "[search_all]") {
  // The job packs each row where the candidate was checked (search::RowSink: the cursor's scenario and digits, the
  // worker's estimate). The rows must be the bytes the sink path gives (a CandidateRecord per feasible candidate,
  // a PlanPoint of Space::scenario and Space::labels, FrontWriter::append_all), in the same order, for any thread
  // count: here that path is run beside the job on the same space.
  const std::string yaml = wide_search_yaml();
  const test::ScratchDir dir;
  const LoadedScenario scenario = load_scenario(
      scenario_document_from_text("search_small_wide.yaml", yaml, {}), test::shipped_catalog());
  const SearchSection section = read_search_section(scenario.doc, test::shipped_catalog(), scenario.scenario);
  const search::Space space = build_search_space(scenario, section, test::shipped_catalog());
  std::vector<std::string> axes;
  for (int a = 0; a < space.axis_count(); ++a) axes.push_back(space.axis(a).name);
  const results::RowLayout layout(max_island_entries(space), axes, longest_label(space));

  std::vector<unsigned char> expected;
  {
    results::FrontWriter writer(dir / "sink.h5", layout, results::WriterOptions{.write_all = true});
    search::SearchOptions so;
    so.method = search::Method::exhaustive;
    so.sink = [&](std::span<const search::CandidateRecord> batch) {
      writer.append_all(batch.size(), [&](std::size_t i, results::PlanPoint& p) {
        p = results::PlanPoint{space.scenario(batch[i].index), batch[i].estimate, batch[i].index,
                               space.labels(batch[i].index)};
      });
    };
    const search::SearchResult r = search::search(space, make_goal(section), so);
    REQUIRE(r.complete);
    results::RunInfo info;
    info.axes = axes;
    writer.finish(info, {});
    expected = raw_all(dir / "sink.h5");
    REQUIRE(r.counts.feasible == 468);
  }
  for (const int threads : {1, 2, 3}) {
    INFO(threads << " threads");
    const SearchJobOptions o = all_rows_search(yaml, dir / "front.h5", threads);
    std::atomic<bool> stop{false};
    const SearchJobResult job = run_search_job(o, test::shipped_catalog(), stop);
    REQUIRE(job.info.feasible == 468);
    const std::vector<unsigned char> got = raw_all(dir / "front.h5");
    REQUIRE(got.size() == expected.size());
    CHECK(got == expected);
  }
}

TEST_CASE("search --all: /all rows read back equal to the model's estimate of each feasible candidate",
          "[search_all]") {
  // The wide space's 468 feasible rows span whole chunks (the writer's encoder) and a partial one (HDF5's filter).
  const std::string yaml = wide_search_yaml();

  const test::ScratchDir dir;
  const SearchJobOptions o = all_rows_search(yaml, dir / "front.h5", 2);
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

TEST_CASE("search --all: rows packed by the search are the same whatever a chunk may hold", "[search_all]") {
  // With packed rows a chunk grows where feasible candidates are sparse, and holds at most
  // search::RowSink::max_chunk_rows rows: a chunk that fills up has the rest of its range walked by the pipeline's
  // serial stage. The rows, their order, the counts and the front must be those of the sink path (fixed chunks of
  // 1,024 candidates, a CandidateRecord per feasible candidate) for any cap and thread count. A GPU-count axis of
  // 512 values: 55,296 candidates, 468 feasible, dense at first and sparse later, so chunks grow.
  std::string yaml = wide_search_yaml();
  const std::string axis = "cluster.islands.0.gpus: 8:512:+8";
  REQUIRE(yaml.find(axis) != std::string::npos);
  yaml.replace(yaml.find(axis), axis.size(), "cluster.islands.0.gpus: 8:4096:+8");
  const LoadedScenario scenario = load_scenario(
      scenario_document_from_text("search_small_wider.yaml", yaml, {}), test::shipped_catalog());
  const SearchSection section = read_search_section(scenario.doc, test::shipped_catalog(), scenario.scenario);
  const search::Space space = build_search_space(scenario, section, test::shipped_catalog());
  REQUIRE(space.size() == 55'296);
  std::vector<std::string> axes;
  for (int a = 0; a < space.axis_count(); ++a) axes.push_back(space.axis(a).name);
  const results::RowLayout layout(max_island_entries(space), axes, longest_label(space));
  const test::ScratchDir dir;
  results::FrontWriter writer(dir / "rows.h5", layout, results::WriterOptions{.write_all = true});
  const std::size_t row_bytes = writer.row_bytes();

  // The sink path, rows packed here from Space::scenario and Space::labels.
  std::vector<std::byte> expected;
  std::set<std::uint64_t> sink_chunks;   // the 1,024-candidate chunks that hold a feasible candidate
  search::SearchOptions sink_options;
  sink_options.method = search::Method::exhaustive;
  sink_options.sink = [&](std::span<const search::CandidateRecord> batch) {
    for (const search::CandidateRecord& r : batch) {
      const std::vector<std::string> labels = space.labels(r.index);
      const std::vector<std::string_view> views(labels.begin(), labels.end());
      expected.resize(expected.size() + row_bytes);
      writer.pack_row(results::RowView{space.scenario(r.index), r.estimate, r.index, views},
                      expected.data() + expected.size() - row_bytes);
      sink_chunks.insert(r.index / 1024);
    }
  };
  const search::SearchResult expected_result = search::search(space, make_goal(section), sink_options);
  REQUIRE(expected_result.counts.feasible == 468);
  REQUIRE(expected.size() == 468 * row_bytes);

  std::atomic<bool> sink_used{false};
  for (const std::size_t max_chunk_rows : {1, 2, 7, 1024}) {
    for (const int threads : {1, 2, 3}) {
      INFO(max_chunk_rows << " rows per chunk at most, " << threads << " threads");
      std::vector<std::byte> rows;
      std::vector<std::size_t> batches;   // rows per append() call
      search::SearchOptions so;
      so.method = search::Method::exhaustive;
      so.sink = [&](std::span<const search::CandidateRecord>) { sink_used = true; };
      so.rows.row_bytes = row_bytes;
      so.rows.max_chunk_rows = max_chunk_rows;
      so.rows.pack = [&](const search::Cursor& cursor, const model::Estimate& e, std::byte* row) {
        std::vector<std::string_view> labels(static_cast<std::size_t>(space.axis_count()));
        for (int p = 0; p < space.axis_count(); ++p) {
          const int a = space.order()[static_cast<std::size_t>(p)];
          labels[static_cast<std::size_t>(a)] = space.axis(a).labels[cursor.digit(p)];
        }
        writer.pack_row(results::RowView{cursor.scenario(), e, cursor.index(), labels}, row);
      };
      so.rows.append = [&](std::span<const std::byte> r) {
        batches.push_back(r.size() / row_bytes);
        rows.insert(rows.end(), r.begin(), r.end());
      };
      tbb::task_arena arena(threads);
      search::SearchResult result;
      arena.execute([&] { result = search::search(space, make_goal(section), so); });
      REQUIRE(result.complete);
      CHECK(rows == expected);
      CHECK(result.counts.feasible == expected_result.counts.feasible);
      CHECK(result.counts.pruned == expected_result.counts.pruned);
      CHECK(result.counts.estimated == expected_result.counts.estimated);
      CHECK(result.counts.bound_pruned == expected_result.counts.bound_pruned);
      REQUIRE(result.front.size() == expected_result.front.size());
      for (std::size_t f = 0; f < result.front.size(); ++f) CHECK(result.front[f].index == expected_result.front[f].index);
      for (const std::size_t b : batches) CHECK(b <= max_chunk_rows);
      if (max_chunk_rows <= 7) CHECK(batches.size() >= 468 / max_chunk_rows);   // the rest of full chunks walked too
      // Sparse stretches went in chunks larger than 1,024 candidates: fewer batches than 1,024-candidate chunks
      // with rows (on one thread; with more, the share-of-what-is-left bound keeps this small space's chunks short).
      if (max_chunk_rows == 1024 && threads == 1) CHECK(batches.size() < sink_chunks.size());
    }
  }
  CHECK_FALSE(sink_used.load());
}
