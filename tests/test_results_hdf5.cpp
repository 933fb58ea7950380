#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <stdexcept>

#include <H5Cpp.h>
#include <nlohmann/json.hpp>

#include "results/errors.hpp"
#include "results/files/hdf5_reader.hpp"
#include "results/files/hdf5_writer.hpp"
#include "results/files/csv.hpp"
#include "results/files/json.hpp"
#include "results/files/row_layout.hpp"
#include "tests/results_test_points.hpp"

using namespace shardmeter;
using results::PlanPoint;
using results::InputProblem;
using test::ScratchDir;

namespace {

// Every column of every row equals what the layout makes of the point (doubles bit for bit).
void check_rows(const results::RowLayout& layout, const std::vector<results::PlanPoint>& points, const results::Table& t) {
  REQUIRE(t.columns == layout.column_names());
  REQUIRE(t.rows.size() == points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    const results::Row expected = layout.row(points[i]);
    for (const std::string& c : t.columns) {
      INFO("row " << i << " column " << c);
      REQUIRE(t.rows[i].count(c) == 1);
      CHECK(t.rows[i].at(c) == expected.at(c));
    }
  }
}

InputProblem problem_of(const std::filesystem::path& p) {
  try {
    results::read_front(p);
  } catch (const results::InputError& e) {
    CHECK(e.path() == p.string());
    return e.problem();
  }
  FAIL("read_front did not throw");
  return InputProblem::malformed;
}

}  // namespace

TEST_CASE("HDF5 front round-trips every column and the run info", "[results][hdf5]") {
  ScratchDir dir;
  const auto points = test::three_points();
  const results::RunInfo info = test::make_run_info();
  results::write_front(dir / "front.h5", info, points);
  CHECK(dir.files() == std::vector<std::string>{"front.h5"});

  const results::ResultFile read = results::read_front(dir / "front.h5");
  CHECK(read.info == info);
  CHECK_FALSE(read.has_all);
  const results::RowLayout layout = results::RowLayout::fit(points, info.axes);
  check_rows(layout, points, read.front);

  // A few cells by hand, so a bug shared by the layout and the reader cannot hide.
  const results::Row& r1 = read.front.rows[1];
  CHECK(results::integer(r1, "index") == 1007);
  CHECK(results::number(r1, "total_cost_usd") == 2.0e6 + 0.5);
  CHECK(results::number(r1, "tokens_per_s") == 2000.125);
  CHECK(results::number(r1, "wall_clock_days") == Approx(29.0));
  CHECK(results::number(r1, "memory_per_gpu_gb") == Approx(60.0));
  CHECK(results::integer(r1, "tp") == 4);
  CHECK(results::text(r1, "sharding") == "zero1");
  CHECK(results::text(r1, "bottleneck") == "dp_comm");
  CHECK(results::text(r1, "island0_gpu") == "h100-sxm");
  CHECK(results::integer(r1, "island1_gpus") == 128);
  CHECK(results::integer(r1, "island1_nodes") == 16);
  CHECK(results::number(r1, "island0_node_network_gbps") == Approx(400.0));
  CHECK(results::number(r1, "island1_utilization") == Approx(0.6));
  CHECK(results::text(r1, "island1_bottleneck") == "wan");
  CHECK(results::number(r1, "island1_memory_per_gpu_gb") == Approx(51.0));
  CHECK(results::text(r1, "axis:cluster.islands.0.gpu") == "h100-sxm");
  CHECK(results::text(r1, "axis:plan.tp") == "4");
  CHECK(results::text(read.front.rows[0], "axis:cluster.islands.0.gpu") == "a100-sxm-80gb");
}

TEST_CASE("HDF5 root attributes carry the contract names", "[results][hdf5]") {
  ScratchDir dir;
  results::write_front(dir / "front.h5", test::make_run_info(), test::three_points());
  H5::H5File file((dir / "front.h5").string(), H5F_ACC_RDONLY);
  const H5::Group root = file.openGroup("/");
  // Spelled out here on purpose: these names are read by scripts outside ShardMeter (issue 4, results/README.md).
  for (const char* name : {"scenario", "version", "method", "seed", "threads", "space_size", "visited", "estimated",
                           "feasible", "elapsed_s", "complete", "objectives", "objective_directions", "axes", "created",
                           "scenario_name", "schema_version", "format", "rejected_heads_not_divisible_by_tp",
                           "rejected_out_of_memory"}) {
    INFO(name);
    CHECK(root.attrExists(name));
  }
  CHECK(file.nameExists("front"));
  CHECK_FALSE(file.nameExists("all"));
  CHECK(file.openDataSet("front").attrExists("units"));
}

TEST_CASE("HDF5 /all grows with each append and is chunked and deflated", "[results][hdf5]") {
  ScratchDir dir;
  const results::RunInfo info = test::make_run_info();
  std::vector<results::PlanPoint> all;
  for (int k = 0; k < 15; ++k) {
    all.push_back(test::make_point(k % 3, k % 2 == 0 ? "h100-sxm" : "a100-sxm-80gb", 1 << (k % 4)));
    all.back().index = static_cast<std::uint64_t>(k);
  }
  {
    results::FrontWriter writer(dir / "run.h5", results::RowLayout(2, info.axes, 16),
                                results::WriterOptions{.write_all = true, .chunk_rows = 4});
    writer.append_all(std::span(all).subspan(0, 5));
    writer.append_all(std::span(all).subspan(5, 3));
    writer.append_all({});
    writer.append_all(std::span(all).subspan(8, 7));
    CHECK(writer.all_rows() == 15);
    // Nothing is visible under the final name until finish().
    CHECK_FALSE(std::filesystem::exists(dir / "run.h5"));
    writer.finish(info, test::three_points());
  }
  CHECK(dir.files() == std::vector<std::string>{"run.h5"});
  const results::RowLayout layout(2, info.axes, 16);
  check_rows(layout, all, results::read_all(dir / "run.h5"));
  const results::ResultFile front = results::read_front(dir / "run.h5");
  CHECK(front.has_all);
  check_rows(layout, test::three_points(), front.front);

  H5::H5File file((dir / "run.h5").string(), H5F_ACC_RDONLY);
  const H5::DataSet dataset = file.openDataSet("all");
  const H5::DSetCreatPropList props = dataset.getCreatePlist();
  CHECK(props.getLayout() == H5D_CHUNKED);
  hsize_t chunk = 0;
  props.getChunk(1, &chunk);
  CHECK(chunk == 4);
  bool deflate = false;
  for (int i = 0; i < props.getNfilters(); ++i) {
    unsigned flags = 0;
    size_t nelements = 0;
    unsigned values[4];
    char name[64];
    unsigned config = 0;
    if (props.getFilter(i, flags, nelements, values, sizeof name, name, config) == H5Z_FILTER_DEFLATE) deflate = true;
  }
  CHECK(deflate);
  hsize_t maxdim = 0, dim = 0;
  dataset.getSpace().getSimpleExtentDims(&dim, &maxdim);
  CHECK(dim == 15);
  CHECK(maxdim == H5S_UNLIMITED);
}

TEST_CASE("HDF5 /all chunks filtered on all threads read back through HDF5's own filters", "[results][hdf5]") {
  // 4-row chunks and 16 chunks per write: rows 0-63 go as one write of 16 stored chunks deflated by the writer
  // (on TBB threads: deflate_rows at level 0, zlib at 1-9), rows 64-99 as 9 more at finish(), and rows 100-101
  // as a partial chunk that HDF5 filters itself. Reading inflates every chunk with HDF5's deflate filter.
  const int level = GENERATE(0, 1, 4);
  INFO("deflate_level " << level);
  ScratchDir dir;
  const results::RunInfo info = test::make_run_info();
  std::vector<results::PlanPoint> all;
  for (int k = 0; k < 102; ++k) {
    all.push_back(test::make_point(k % 3, k % 2 == 0 ? "h100-sxm" : "a100-sxm-80gb", 1 << (k % 4)));
    all.back().index = static_cast<std::uint64_t>(k);
    all.back().estimate.total_cost_usd += k;   // distinct rows, so a misplaced chunk would show
  }
  {
    results::FrontWriter writer(dir / "run.h5", results::RowLayout(2, info.axes, 16),
                                results::WriterOptions{.write_all = true, .chunk_rows = 4, .deflate_level = level});
    writer.append_all(std::span(all).subspan(0, 70));
    // The rest through the fill form (as the search's sink writes): each row set into a point of the writer's.
    writer.append_all(32, [&](std::size_t i, results::PlanPoint& p) { p = all[70 + i]; });
    CHECK(writer.all_rows() == 102);
    writer.finish(info, test::three_points());
  }
  check_rows(results::RowLayout(2, info.axes, 16), all, results::read_all(dir / "run.h5"));
  // Deflate is the only filter: any HDF5 reader (h5py included) decodes it without plugins.
  H5::H5File file((dir / "run.h5").string(), H5F_ACC_RDONLY);
  const H5::DSetCreatPropList props = file.openDataSet("all").getCreatePlist();
  REQUIRE(props.getNfilters() == 1);
  unsigned flags = 0, values[4];
  size_t nelements = 4;
  char name[64];
  unsigned config = 0;
  CHECK(props.getFilter(0, flags, nelements, values, sizeof name, name, config) == H5Z_FILTER_DEFLATE);
}

TEST_CASE("A schema_version 1 file is read: its `evaluated` is the visited count, model calls are unknown",
          "[results][hdf5]") {
  ScratchDir dir;
  results::write_front(dir / "v1.h5", test::make_run_info(), test::three_points());
  {
    H5::H5File f((dir / "v1.h5").string(), H5F_ACC_RDWR);
    H5::Group root = f.openGroup("/");
    const std::int64_t v = 1;
    root.openAttribute("schema_version").write(H5::PredType::NATIVE_INT64, &v);
    root.renameAttr("visited", "evaluated");   // schema 1's name for the visited count
    root.removeAttr("estimated");              // schema 1 did not record model calls
  }
  const results::ResultFile read = results::read_front(dir / "v1.h5");
  CHECK(read.info.visited == 36);
  CHECK_FALSE(read.info.estimated.has_value());
  CHECK(read.front.rows.size() == 3);
}

TEST_CASE("An interrupted search still writes its front, marked incomplete", "[results][hdf5]") {
  ScratchDir dir;
  results::RunInfo info = test::make_run_info();
  info.complete = false;
  info.visited = 20;  // of 36
  results::FrontWriter writer(dir / "partial.h5", results::RowLayout(2, info.axes),
                              results::WriterOptions{.write_all = true});
  const auto points = test::three_points();
  writer.append_all(std::span(points).subspan(0, 2));
  writer.finish(info, std::span(points).subspan(0, 2));

  const results::ResultFile read = results::read_front(dir / "partial.h5");
  CHECK_FALSE(read.info.complete);
  CHECK(read.info.visited == 20);
  CHECK(read.front.rows.size() == 2);
  CHECK(results::read_all(dir / "partial.h5").rows.size() == 2);
  H5::H5File file((dir / "partial.h5").string(), H5F_ACC_RDONLY);
  CHECK(file.openGroup("/").openAttribute("complete").getTypeClass() == H5T_ENUM);  // h5py reads numpy.bool_
}

TEST_CASE("An empty front is a valid file with zero rows", "[results][hdf5]") {
  ScratchDir dir;
  results::RunInfo info = test::make_run_info();
  info.feasible = 0;
  info.axes.clear();
  info.objectives.clear();
  results::write_front(dir / "empty.h5", info, {});
  const results::ResultFile read = results::read_front(dir / "empty.h5");
  CHECK(read.info == info);
  CHECK(read.front.rows.empty());
  CHECK(read.front.columns.front() == "index");
}

TEST_CASE("A failed write leaves neither the output nor a temporary file", "[results][hdf5][atomic]") {
  ScratchDir dir;
  const results::RunInfo info = test::make_run_info();
  const auto points = test::three_points();

  SECTION("the directory does not exist") {
    const auto out = dir / "missing" / "front.h5";
    CHECK_THROWS_AS(results::write_front(out, info, points), results::OutputError);
    try {
      results::write_front(out, info, points);
    } catch (const results::OutputError& e) {
      CHECK(e.path() == out.string());
    }
    CHECK(dir.files().empty());
  }
  SECTION("the output path is a directory") {
    std::filesystem::create_directory(dir / "front.h5");
    CHECK_THROWS_AS(results::write_front(dir / "front.h5", info, points), results::OutputError);
    CHECK(dir.files() == std::vector<std::string>{"front.h5"});
    CHECK(std::filesystem::is_directory(dir / "front.h5"));
  }
  SECTION("an exception in the caller between appends and finish") {
    try {
      results::FrontWriter writer(dir / "front.h5", results::RowLayout(2, info.axes),
                                  results::WriterOptions{.write_all = true, .chunk_rows = 2});
      writer.append_all(points);
      CHECK(dir.files().size() == 1);  // the temporary file
      throw std::runtime_error("search failed");
    } catch (const std::runtime_error&) {
    }
    CHECK(dir.files().empty());
  }
  SECTION("a point that does not fit the layout, mid-stream") {
    results::FrontWriter writer(dir / "front.h5", results::RowLayout(2, info.axes, 8),
                                results::WriterOptions{.write_all = true, .chunk_rows = 2});
    writer.append_all(std::span(points).subspan(2, 1));  // "h200-sxm" fits 8 bytes, "a100-sxm-80gb" does not
    CHECK_THROWS_AS(writer.append_all(points), results::OutputError);
    CHECK(dir.files().empty());
    CHECK_THROWS_AS(writer.finish(info, points), results::OutputError);  // the writer stays failed
    CHECK(dir.files().empty());
  }
  SECTION("a row packed elsewhere that does not fit the layout, and packed rows that are not whole rows") {
    results::FrontWriter writer(dir / "front.h5", results::RowLayout(2, info.axes, 8),
                                results::WriterOptions{.write_all = true, .chunk_rows = 2});
    std::vector<std::byte> row(writer.row_bytes());
    auto view = [](const results::PlanPoint& p, std::vector<std::string_view>& labels) {
      labels.assign(p.labels.begin(), p.labels.end());
      return results::RowView{p.scenario, p.estimate, p.index, labels};
    };
    std::vector<std::string_view> labels;
    writer.pack_row(view(points[2], labels), row.data());   // "h200-sxm" fits 8 bytes
    writer.append_packed(row);
    CHECK(writer.all_rows() == 1);
    CHECK_THROWS_AS(writer.pack_row(view(points[0], labels), row.data()), results::OutputError);   // "a100-sxm-80gb"
    CHECK_THROWS_AS(writer.append_packed(std::span(row).first(row.size() - 1)), results::OutputError);
    CHECK(dir.files().empty());
  }
  SECTION("finish with another set of axes") {
    results::FrontWriter writer(dir / "front.h5", results::RowLayout(2, {"plan.tp"}));
    CHECK_THROWS_AS(writer.finish(info, points), results::OutputError);
    CHECK(dir.files().empty());
  }
  SECTION("a failure keeps the previous file intact") {
    results::write_front(dir / "front.h5", info, std::span(points).subspan(0, 1));
    results::PlanPoint too_many = points[0];
    too_many.labels.push_back("extra");
    CHECK_THROWS_AS(results::write_front(dir / "front.h5", info, std::vector{points[1], too_many}),
                    results::OutputError);
    CHECK(dir.files() == std::vector<std::string>{"front.h5"});
    CHECK(results::read_front(dir / "front.h5").front.rows.size() == 1);
  }
}

TEST_CASE("Reading names what is wrong with the file", "[results][hdf5][reader]") {
  ScratchDir dir;
  CHECK(problem_of(dir / "nope.h5") == InputProblem::missing);

  std::ofstream(dir / "text.h5") << "not hdf5\n";
  CHECK(problem_of(dir / "text.h5") == InputProblem::not_hdf5);

  { H5::H5File other((dir / "other.h5").string(), H5F_ACC_TRUNC); }
  CHECK(problem_of(dir / "other.h5") == InputProblem::not_shardmeter);

  results::write_front(dir / "future.h5", test::make_run_info(), test::three_points());
  {
    H5::H5File f((dir / "future.h5").string(), H5F_ACC_RDWR);
    const std::int64_t v = 99;
    f.openGroup("/").openAttribute("schema_version").write(H5::PredType::NATIVE_INT64, &v);
  }
  CHECK(problem_of(dir / "future.h5") == InputProblem::wrong_schema);

  results::write_front(dir / "no_seed.h5", test::make_run_info(), test::three_points());
  {
    H5::H5File f((dir / "no_seed.h5").string(), H5F_ACC_RDWR);
    f.openGroup("/").removeAttr("seed");
  }
  CHECK(problem_of(dir / "no_seed.h5") == InputProblem::wrong_schema);

  results::write_front(dir / "front.h5", test::make_run_info(), test::three_points());
  try {
    results::read_all(dir / "front.h5");
    FAIL("read_all did not throw");
  } catch (const results::InputError& e) {
    CHECK(e.problem() == InputProblem::missing_dataset);
  }
}

// Not run by default: ctest runs it (tag [python_fixture]) before tests/python/check_front.py, which reads the file
// (and the same rows as CSV and JSON) with h5py + pandas and compares with the sidecar JSON written here: values,
// attributes, and every column's dtype and unit.
TEST_CASE("Write a front for the h5py/pandas check", "[.][python_fixture]") {
  const char* env = std::getenv("SHARDMETER_PY_FIXTURE_DIR");
  REQUIRE(env != nullptr);
  const std::filesystem::path dir(env);
  std::filesystem::create_directories(dir);
  const auto points = test::three_points();
  const results::RunInfo info = test::make_run_info();
  results::FrontWriter writer(dir / "front.h5", results::RowLayout::fit(points, info.axes),
                              results::WriterOptions{.write_all = true, .chunk_rows = 2});
  writer.append_all(points);
  writer.append_all(points);
  writer.finish(info, points);
  const results::RowLayout layout = results::RowLayout::fit(points, info.axes);
  results::write_csv(dir / "front.csv", layout.table(points));
  results::write_json(dir / "front.json", info, layout.table(points));

  nlohmann::json expected;
  for (const results::FileColumn& c : layout.columns()) {
    static const std::map<results::ColumnType, std::string> kDtype = {
        {results::ColumnType::uint64, "uint64"}, {results::ColumnType::int64, "int64"},
        {results::ColumnType::float64, "float64"}, {results::ColumnType::text, "str"},
        {results::ColumnType::boolean, "bool"}};
    expected["dtypes"][c.name] = kDtype.at(c.type);
    expected["units"][c.name] = c.unit;
  }
  for (const results::PlanPoint& p : points) {
    expected["total_cost_usd"].push_back(p.estimate.total_cost_usd);
    expected["tokens_per_s"].push_back(p.estimate.tokens_per_s);
    expected["index"].push_back(p.index);
    expected["island0_gpu"].push_back(std::string(p.scenario.cluster.islands[0].gpu.name.view()));
    expected["axis:plan.tp"].push_back(p.labels[1]);
  }
  expected["all_rows"] = 6;
  expected["attrs"] = {{"scenario", info.scenario_text}, {"version", info.version}, {"method", info.method},
                       {"seed", info.seed}, {"threads", info.threads}, {"space_size", info.space_size},
                       {"visited", info.visited}, {"estimated", *info.estimated}, {"feasible", info.feasible},
                       {"elapsed_s", info.elapsed_s},
                       {"complete", info.complete}, {"scenario_name", info.scenario_name},
                       {"created", info.created}, {"schema_version", 3},
                       {"rejected_out_of_memory", info.rejected.at("out_of_memory")}};
  expected["objectives"] = {"total_cost_usd", "tokens_per_s"};
  expected["axes"] = info.axes;
  std::ofstream(dir / "front.expected.json") << expected.dump(2) << "\n";
}
