// A streamed sweep (src/sweep/sweep_stream.hpp) writes the same CSV, byte for byte, the same HDF5 file (datasets,
// types, rows, attributes), and the same analyses as the
// sweep held in memory, for every shape of series: one axis, two with the knee along the last axis, two with the
// knee along the first (its series run across the whole sweep), infeasible points, and a real crossing.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <unistd.h>

#include <H5Cpp.h>

#include "catalog_fixture.hpp"
#include "model/spec/enum_names.hpp"
#include "results/files/csv.hpp"
#include "results/files/hdf5_io.hpp"
#include "results/files/hdf5_writer.hpp"
#include "results/files/table_hdf5.hpp"
#include "results/files/hdf5_reader.hpp"
#include "run_shardmeter.hpp"
#include "src/sweep/sweep.hpp"
#include "src/sweep/sweep_output.hpp"
#include "src/sweep/sweep_report.hpp"
#include "src/sweep/sweep_stream.hpp"

using namespace shardmeter;
using namespace shardmeter::cli;
namespace fs = std::filesystem;
using shardmeter::testing::read_text;

namespace {

namespace h5io = results::h5io;

// The same attributes (names, types, values) on two HDF5 objects.
void check_same_attributes(const H5::H5Object& held, const H5::H5Object& streamed) {
  const std::vector<std::string> names = h5io::attribute_names(held);
  REQUIRE(h5io::attribute_names(streamed) == names);
  for (const std::string& name : names) {
    INFO("attribute " << name);
    const H5::Attribute a = held.openAttribute(name), b = streamed.openAttribute(name);
    CHECK(a.getDataType() == b.getDataType());
    if (a.getTypeClass() == H5T_STRING) {
      if (a.getSpace().getSimpleExtentNdims() == 0) CHECK(h5io::read_text_attribute(held, name) == h5io::read_text_attribute(streamed, name));
      else CHECK(h5io::read_text_array_attribute(held, name) == h5io::read_text_array_attribute(streamed, name));
      continue;
    }
    REQUIRE(a.getStorageSize() == b.getStorageSize());
    std::vector<char> x(a.getStorageSize()), y(b.getStorageSize());
    a.read(a.getDataType(), x.data());
    b.read(b.getDataType(), y.data());
    CHECK(x == y);
  }
}

// Two sweep HDF5 files hold the same: root attributes, and /front and /sweep with the same type, storage layout,
// rows (every byte of every row: all their types have a fixed size) and attributes.
void check_same_hdf5(const fs::path& held_path, const fs::path& streamed_path) {
  const H5::H5File held(held_path.string(), H5F_ACC_RDONLY), streamed(streamed_path.string(), H5F_ACC_RDONLY);
  REQUIRE(held.getNumObjs() == 2);
  REQUIRE(streamed.getNumObjs() == 2);
  check_same_attributes(held.openGroup("/"), streamed.openGroup("/"));
  for (const char* name : {"front", "sweep"}) {
    INFO("dataset /" << name);
    const H5::DataSet a = held.openDataSet(name), b = streamed.openDataSet(name);
    REQUIRE(a.getDataType() == b.getDataType());
    CHECK(a.getCreatePlist().getLayout() == b.getCreatePlist().getLayout());
    hsize_t rows_a = 0, rows_b = 0;
    a.getSpace().getSimpleExtentDims(&rows_a);
    b.getSpace().getSimpleExtentDims(&rows_b);
    REQUIRE(rows_a == rows_b);
    const std::size_t bytes = rows_a * a.getDataType().getSize();
    std::vector<char> x(bytes), y(bytes);
    a.read(x.data(), a.getDataType());
    b.read(y.data(), b.getDataType());
    CHECK(x == y);
    check_same_attributes(a, b);
  }
  // And as the project's reader reads /front.
  const results::ResultFile r = results::read_front(held_path), s = results::read_front(streamed_path);
  CHECK(s.info == r.info);
  CHECK(s.front.columns == r.front.columns);
  CHECK(s.front.rows == r.front.rows);
}

void check_same_as_held(const std::string& scenario, const std::vector<std::string>& axis_texts) {
  const LoadedScenario base = load_scenario(scenario, {}, test::shipped_catalog());
  std::vector<AxisSpec> axes;
  for (const std::string& t : axis_texts) axes.push_back(axis_from_text(t));
  const fs::path dir = fs::temp_directory_path() / ("shardmeter_sweep_stream_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);

  const Sweep held = run_sweep(base, test::shipped_catalog(), axes);
  // The reference files, written whole as write_sweep wrote them before it went through the streamed writers:
  // the table of every row (sweep_table) to results::write_csv; /front by results::write_front, /sweep by
  // results::add_table_dataset (which derives its types and widths from every row).
  const SweepProvenance provenance{base.doc.text, {"goodput.restart_s=3"}, "2026-12-08T00:00:00Z", 1.5};
  results::write_csv(dir / "held.csv", sweep_table(held));
  {
    std::uint64_t feasible = 0;
    std::map<std::string, std::uint64_t> rejected;
    std::vector<results::PlanPoint> points;
    for (const SweepPoint& p : held.points) {
      if (p.estimate.feasible) ++feasible;
      else ++rejected[std::string(model::enum_name(p.estimate.reject_reason))];
      points.push_back(results::PlanPoint{held.scenario_of(p), p.estimate, p.index, p.labels});
    }
    results::write_front(dir / "held.h5", sweep_run_info(held.scenario_name, held.axes, held.points.size(), feasible,
                                                         rejected, provenance), points);
    results::add_table_dataset(dir / "held.h5", "sweep", sweep_table(held), sweep_units(held),
                               sweep_root_attributes(held.axes, held.knee_axis, "", knee_lines(held),
                                                     transition_lines(held), provenance));
  }
  write_sweep(held, (dir / "written.csv").string(), provenance);
  write_sweep(held, (dir / "written.h5").string(), provenance);
  const search::Space space = sweep_space(base, test::shipped_catalog(), axes);
  const StreamedSweep streamed = analyse_streamed_sweep(space, base.name, axes);
  write_streamed_sweep_csv(streamed, space, (dir / "streamed.csv").string());

  CHECK(read_text(dir / "streamed.csv") == read_text(dir / "held.csv"));
  CHECK(read_text(dir / "written.csv") == read_text(dir / "held.csv"));
  CHECK(read_text(dir / "written.units.csv") == read_text(dir / "held.units.csv"));
  write_streamed_sweep_hdf5(streamed, space, (dir / "streamed.h5").string(), provenance);
  check_same_hdf5(dir / "held.h5", dir / "streamed.h5");
  check_same_hdf5(dir / "held.h5", dir / "written.h5");
  std::ostringstream json;
  write_streamed_sweep_json(streamed, space, json);
  CHECK(json.str() == sweep_json(held));
  std::ostringstream held_json;
  write_sweep_json(held, held_json);
  CHECK(held_json.str() == sweep_json(held));
  CHECK(read_text(dir / "streamed.units.csv") == read_text(dir / "held.units.csv"));
  REQUIRE(streamed.knees.size() == held.knees.size());
  for (std::size_t k = 0; k < held.knees.size(); ++k) {
    CHECK(streamed.knees[k].fixed == held.knees[k].series.fixed);
    CHECK(streamed.knees[k].text == describe_knee(held, held.knees[k]));
  }
  REQUIRE(streamed.transitions.size() == held.transitions.size());
  for (std::size_t t = 0; t < held.transitions.size(); ++t) {
    CHECK(streamed.transitions[t].fixed == held.transitions[t].series.fixed);
    CHECK(streamed.transitions[t].text == describe_transition(held, held.transitions[t]));
  }
  // The printed table, row by row, with the widths found in the first pass.
  const StreamedSweep with_table = analyse_streamed_sweep(space, base.name, axes, true);
  std::ostringstream table;
  write_streamed_sweep_table(with_table, space, table);
  CHECK(table.str() == format_sweep_table(held));
  fs::remove_all(dir);
}

}  // namespace

TEST_CASE("a streamed sweep writes the held sweep's CSV and analyses, byte for byte", "[sweep]") {
  const std::string small = SHARDMETER_TEST_DATA_DIR "/small.yaml";
  SECTION("one island-size axis") { check_same_as_held(small, {"cluster.islands.0.gpus=16:256:x2"}); }
  SECTION("two axes, the knee along the last") {
    check_same_as_held(small, {"plan.tp=[1, 2, 3, 4]", "cluster.islands.0.gpus=[16, 32, 64, 128]"});
  }
  SECTION("two axes, the knee along the first: its series run across the sweep") {
    check_same_as_held(small, {"cluster.islands.0.gpus=[16, 32, 64, 128]", "plan.tp=[2, 3, 4, 8]"});
  }
  SECTION("a crossing of the 50 % communication share") {
    check_same_as_held(SHARDMETER_SOURCE_DIR "/scenarios/fsdp-thresholds-h100.yaml",
                       {"cluster.islands.0.node_network_gbps=100:3200:x2"});
  }
  SECTION("two goodput axes") {
    check_same_as_held(small, {"goodput.checkpoint_write_s=1:20", "goodput.restart_s=1:30:+7"});
  }
}
