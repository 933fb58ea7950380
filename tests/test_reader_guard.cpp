// The guarded HDF5 reader (issue 14): libhdf5 crashes on some corrupt files, so result files are parsed in a child
// process (results/files/isolated_process.hpp) whose answer is checked frame by frame (results/files/result_wire.hpp).
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "results/errors.hpp"
#include "results/files/hdf5_reader.hpp"
#include "results/files/hdf5_writer.hpp"
#include "results/files/isolated_process.hpp"
#include "results/files/result_wire.hpp"
#include "tests/results_test_points.hpp"
#include "tests/run_shardmeter.hpp"

using namespace shardmeter;
using results::ChildFailure;
using results::FrameSink;

namespace {

// A ShardMeter front whose `format` attribute (a variable-length string) points at a global heap object that
// claims 2^40 bytes: H5HG_read copies that many and crashes (found by fuzz_front_reader; the crasher replayed by
// ctest's fuzz.replay_fuzz_front_reader).
const std::filesystem::path kCrashers = std::filesystem::path(SHARDMETER_SOURCE_DIR) / "tests/fuzz/crashers/fuzz_front_reader";
const std::filesystem::path kHeapCrasher = kCrashers / "vlen_attribute_heap_object_2e40_bytes.h5";
// The same function reading through a heap reference the fuzzer damaged (a 25 s in-process run): SIGSEGV in H5HG_read.
const std::filesystem::path kWildHeapCrasher = kCrashers / "h5hg_read_wild_heap_address.h5";

// Two fronts a 10-minute fuzz_report_export run found (issue 33), each 19,146 bytes, mutations of the seed front:
// one variable-length string of /front's `units` attribute claims 0xF6000006 bytes (about 4.1 GB) for a heap
// object of a few, and libhdf5 allocates, clears and copies that much per string (17.7 s and 4.5 GB before, then
// success); the other zeroes objects of the global heap collection, and H5HG__cache_heap_deserialize loops forever
// on an object of size 0 (stopped only by the 20 s idle limit before).
const std::filesystem::path kSlowCrashers =
    std::filesystem::path(SHARDMETER_SOURCE_DIR) / "tests/fuzz/crashers/fuzz_report_export";
const std::filesystem::path kHugeVlenFront = kSlowCrashers / "vlen_string_length_4gb.h5";
const std::filesystem::path kHeapLoopFront = kSlowCrashers / "global_heap_zero_size_object_loop.h5";

std::vector<std::string> frames_of(const std::function<void(FrameSink&)>& child, const results::IsolationLimits& limits = {}) {
  std::vector<std::string> frames;
  results::run_isolated(child, [&](std::string_view f) { frames.emplace_back(f); }, limits);
  return frames;
}

std::string failure_of(const std::function<void(FrameSink&)>& child, const results::IsolationLimits& limits = {}) {
  try {
    frames_of(child, limits);
  } catch (const ChildFailure& e) {
    return e.what();
  }
  return "(no failure)";
}

struct Planted {};

}  // namespace

TEST_CASE("run_isolated delivers the child's frames in order", "[results][isolation]") {
  CHECK(frames_of([](FrameSink& s) {
          s.send("a");
          s.send("");
          s.send(std::string(200000, 'x'));   // more than a pipe holds: the parent reads while the child writes
          s.send("bb");
        }) == std::vector<std::string>{"a", "", std::string(200000, 'x'), "bb"});
  CHECK(frames_of([](FrameSink&) {}).empty());
}

TEST_CASE("a crash, an abort, an exception or a hang in the child is a ChildFailure of the parent", "[results][isolation]") {
  CHECK_THAT(failure_of([](FrameSink&) { ::kill(::getpid(), SIGKILL); }),
             Catch::Contains("the reader process crashed (signal 9"));
  // abort(): SIGABRT; a sanitizer build that turns it into a report exits with its own status instead.
  CHECK_THAT(failure_of([](FrameSink&) { std::abort(); }), Catch::Contains("the reader process"));
  CHECK(failure_of([](FrameSink&) { throw std::runtime_error("x"); }) == "the reader process failed (status 3)");
  CHECK(failure_of([](FrameSink&) { ::_exit(7); }) == "the reader process failed (status 7)");

  results::IsolationLimits quick;
  quick.idle_timeout = std::chrono::milliseconds(300);
  const auto start = std::chrono::steady_clock::now();
  CHECK_THAT(failure_of([](FrameSink&) { ::sleep(30); }, quick),
             Catch::Contains("made no progress for 0.3 s and was stopped"));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));

  // Progress restarts the idle clock: 6 frames 100 ms apart take longer than the 300 ms limit in all.
  CHECK(frames_of(
            [](FrameSink& s) {
              for (int i = 0; i < 6; ++i) {
                ::usleep(100000);
                s.send("tick");
              }
            },
            quick)
            .size() == 6);

  // Time the parent spends on a frame is not the child's: a consumer slower than the limit still gets everything.
  int received = 0;
  results::run_isolated(
      [](FrameSink& s) {
        for (int i = 0; i < 3; ++i) s.send("row block");
      },
      [&](std::string_view) {
        ::usleep(500000);
        ++received;
      },
      quick);
  CHECK(received == 3);
}

TEST_CASE("a child that spins or grows without sending a frame is stopped at the processor-time or memory limit",
          "[results][isolation]") {
  results::IsolationLimits limits;
  limits.idle_timeout = std::chrono::seconds(60);
  limits.cpu_idle_timeout = std::chrono::milliseconds(300);
  limits.max_memory_growth_bytes = std::size_t{64} << 20;

  // A loop (as libhdf5's on a corrupt global heap): stopped after 0.3 s of processor time, long before the idle limit.
  auto start = std::chrono::steady_clock::now();
  CHECK(failure_of(
            [](FrameSink&) {
              volatile std::uint64_t x = 0;
              for (;;) x = x + 1;
            },
            limits) == "the reader process used 0.3 s of processor time without progress and was stopped");
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(30));

  // Waiting uses no processor time: a child blocked (a slow disk) is left to the wall-clock idle limit.
  results::IsolationLimits waiting = limits;
  waiting.idle_timeout = std::chrono::milliseconds(1500);
  CHECK(failure_of([](FrameSink&) { ::sleep(30); }, waiting) ==
        "the reader process made no progress for 1.5 s and was stopped");

  // Memory written page by page (as libhdf5 clearing a buffer a string's length claims): stopped past 64 MiB of
  // growth, long before it reaches the 1 GiB it asks for.
  start = std::chrono::steady_clock::now();
  CHECK(failure_of(
            [](FrameSink&) {
              static std::vector<char*> held;   // kept reachable: clang drops a malloc+memset whose block is unused
              for (int i = 0; i < 64; ++i) {
                held.push_back(static_cast<char*>(std::malloc(std::size_t{16} << 20)));
                if (held.back() != nullptr) std::memset(held.back(), 1, std::size_t{16} << 20);
                ::usleep(10000);   // the parent looks every 50 ms: stay well within reach of the limit
              }
              ::sleep(30);
            },
            limits) == "the reader process needed more than 64 MiB of memory and was stopped");
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(30));

  // Work within the limits that sends frames is not stopped: 1.5 s of processor time in slices of 0.1 s, each ended
  // by a frame, and 32 MiB held.
  CHECK(frames_of(
            [](FrameSink& s) {
              std::vector<char> held(std::size_t{32} << 20, 1);
              for (int i = 0; i < 15; ++i) {
                timespec t0{}, t{};
                ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
                do {
                  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
                } while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 100000000L);
                s.send(std::string(1, held[static_cast<std::size_t>(i)]));
              }
            },
            limits)
            .size() == 15);
}

TEST_CASE("an exception of the parent's frame handler ends the child and propagates", "[results][isolation]") {
  const auto start = std::chrono::steady_clock::now();
  CHECK_THROWS_AS(results::run_isolated(
                      [](FrameSink& s) {
                        s.send("first");
                        ::sleep(30);
                      },
                      [](std::string_view) { throw Planted{}; }),
                  Planted);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));   // killed, not waited for
}

TEST_CASE("the wire decoder rebuilds what the child sent and refuses every damaged answer", "[results][isolation]") {
  namespace w = results::wire;
  const results::RunInfo info = test::make_run_info();
  const std::vector<std::string> columns{"a", "b", "c", "d"};
  results::Row row{{"a", std::int64_t{-3}}, {"b", 2.5}, {"c", std::string("h100\0x", 6)}, {"d", true}};
  w::RowBatch batch(columns);
  batch.add(row);
  batch.add(results::Row{{"b", 1.0}});
  const std::vector<std::string> frames{w::run_info_frame(info), w::columns_frame(columns, {"", "s", "", ""}),
                                        batch.take(), w::has_all_frame(true), w::done_frame()};
  w::AnswerDecoder answer;
  for (const std::string& f : frames) answer.frame(f);
  REQUIRE(answer.done);
  CHECK(*answer.info == info);
  CHECK(*answer.columns == columns);
  CHECK(answer.units == std::vector<std::string>{"", "s", "", ""});
  CHECK(answer.rows == std::vector<results::Row>{row, results::Row{{"b", 1.0}}});
  CHECK(*answer.has_all);

  // Every frame cut short, or with a byte more, is refused (and never read past its end: ASan checks that).
  for (std::size_t k = 0; k + 1 < frames.size(); ++k) {
    for (std::size_t n = 0; n < frames[k].size(); ++n) {
      w::AnswerDecoder d;
      for (std::size_t j = 0; j < k; ++j) d.frame(frames[j]);
      INFO("frame " << k << " cut to " << n << " bytes");
      CHECK_THROWS_AS(d.frame(std::string_view(frames[k]).substr(0, n)), w::WireError);
    }
    w::AnswerDecoder d;
    for (std::size_t j = 0; j < k; ++j) d.frame(frames[j]);
    CHECK_THROWS_AS(d.frame(frames[k] + "!"), w::WireError);
  }
  w::AnswerDecoder d;
  CHECK_THROWS_AS(d.frame(frames[2]), w::WireError);   // rows before the columns
  d.frame(w::error_frame(results::InputProblem::not_shardmeter, "x"));
  CHECK_THROWS_AS(d.frame(w::done_frame()), w::WireError);   // nothing after an error
  w::AnswerDecoder e;
  e.frame(w::columns_frame({"a"}, {}));
  CHECK_THROWS_AS(e.frame(frames[2]), w::WireError);   // column 1 of a one-column table
  CHECK_THROWS_AS(e.frame("Z"), w::WireError);
  CHECK_THROWS_AS(w::AnswerDecoder().frame(w::error_frame(static_cast<results::InputProblem>(77), "")), w::WireError);
}

TEST_CASE("the guarded reader returns what the writer wrote, and a child's error as the same InputError",
          "[results][hdf5][reader][isolation]") {
  test::ScratchDir dir;
  results::write_front(dir / "front.h5", test::make_run_info(), test::three_points());
  const results::ResultFile guarded = results::read_front(dir / "front.h5");
  const results::ResultFile direct = results::in_process::read_front(dir / "front.h5");
  CHECK(guarded.info == direct.info);
  CHECK(guarded.front.columns == direct.front.columns);
  CHECK(guarded.front.units == direct.front.units);
  CHECK(guarded.front.rows == direct.front.rows);
  CHECK(guarded.has_all == direct.has_all);
  try {
    results::read_all(dir / "front.h5");
    FAIL("read_all did not throw");
  } catch (const results::InputError& e) {
    CHECK(e.problem() == results::InputProblem::missing_dataset);
    CHECK(std::string(e.what()) == "cannot read " + (dir / "front.h5").string() +
                                       ": no /all dataset (the search ran without --all)");
  }
}

TEST_CASE("a corrupt global heap that crashes libhdf5 is a located error, not a crash (issue 14)",
          "[results][hdf5][reader][isolation]") {
  for (const std::filesystem::path& file : {kHeapCrasher, kWildHeapCrasher}) {
    INFO(file);
    REQUIRE(std::filesystem::exists(file));
    try {
      results::read_front(file);
      FAIL("read_front did not throw");
    } catch (const results::InputError& e) {
      CHECK(e.path() == file.string());
      CHECK(e.problem() == results::InputProblem::not_hdf5);
      CHECK_THAT(e.what(), Catch::StartsWith("cannot read " + file.string() +
                                             ": not a readable ShardMeter result file (the reader process "));
    }
    CHECK_THROWS_AS(results::read_all(file), results::InputError);
  }
}

TEST_CASE("report and export of a file that crashes libhdf5: status 2, a located message, nothing written",
          "[results][isolation][cli]") {
  test::ScratchDir dir;
  std::filesystem::copy_file(kHeapCrasher, dir / "bad.h5");
  std::filesystem::copy_file(kWildHeapCrasher, dir / "wild.h5");
  const std::string d = dir.path().string();
  for (const std::string name : {"bad.h5", "wild.h5"}) {
    const std::string expected =
        "cannot read " + name + ": not a readable ShardMeter result file (the reader process ";
    for (const std::string& args : {"report " + name + " -o r.html --markdown r.md",
                                   "export " + name + " --format plan-json -o p.json",
                                   "export " + name + " --format plan-json"}) {
      INFO(args);
      const auto r = testing::run_shardmeter(args, d);
      CHECK(r.status == 2);
      CHECK_THAT(r.err, Catch::Contains(expected));
      CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);   // one line: no library or sanitizer noise
      CHECK(r.out.empty());
      CHECK(dir.files() == std::vector<std::string>{"bad.h5", "wild.h5"});
    }
  }
}

namespace {

// Processor time (user + system) and the peak resident memory of the largest child, of the processes this one has
// waited for: run_shardmeter's shell, shardmeter and its reader child.
struct ChildrenUsage {
  double cpu_s;
  long max_rss_kb;
};
ChildrenUsage children_usage() {
  rusage u{};
  ::getrusage(RUSAGE_CHILDREN, &u);
  const auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec); };
  return {seconds(u.ru_utime) + seconds(u.ru_stime), u.ru_maxrss};
}

}  // namespace

TEST_CASE("report and export of a front that makes libhdf5 allocate gigabytes or loop: status 2 within seconds",
          "[results][isolation][cli]") {
  test::ScratchDir dir;
  std::filesystem::copy_file(kHugeVlenFront, dir / "huge.h5");
  std::filesystem::copy_file(kHeapLoopFront, dir / "loop.h5");
  const std::string d = dir.path().string();
  for (const auto& [name, reason] :
       {std::pair<std::string, std::string>{"huge.h5", "needed more than 1024 MiB of memory and was stopped)"},
        std::pair<std::string, std::string>{"loop.h5", "used 2 s of processor time without progress and was stopped)"}}) {
    for (const std::string& args :
         {"report " + name + " -o r.html --markdown r.md", "export " + name + " --format megatron"}) {
      INFO(args);
      const ChildrenUsage before = children_usage();
      const auto wall_start = std::chrono::steady_clock::now();
      const auto r = testing::run_shardmeter(args, d);
      const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
      const ChildrenUsage after = children_usage();
      INFO("wall " << wall_s << " s, processor " << after.cpu_s - before.cpu_s << " s, peak child RSS "
                   << after.max_rss_kb / 1024 << " MiB");
      CHECK(r.status == 2);
      CHECK(r.err == "shardmeter " + args.substr(0, args.find(' ')) + ": cannot read " + name +
                         ": not a readable ShardMeter result file (the reader process " + reason + "\n");
      CHECK(r.out.empty());
      CHECK(dir.files() == std::vector<std::string>{"huge.h5", "loop.h5"});
      // The bound: processor time, which a loaded machine does not stretch (before: 17.7 s and 20 s). The guard
      // allows 2 s of it to the child, and filling 1 GiB takes well under that; the rest is shardmeter's start.
      CHECK(after.cpu_s - before.cpu_s < 5.0);
      // Memory: 1 GiB of growth and what 50 ms more can add (before: 4.5 GB and growing when the child was stopped).
      CHECK(after.max_rss_kb < 1700L * 1024);
    }
  }
}
