// Issue 14: outputs survive hostile paths, full disks and signals. Every file goes through results::AtomicFile:
// an unpredictable temporary name created with O_EXCL|O_NOFOLLOW, fsync, rename; non-regular targets written
// through (text) or refused (HDF5), never replaced; SIGINT/SIGTERM/SIGHUP remove the temporary file.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "results/errors.hpp"
#include "results/files/atomic_file.hpp"
#include "results/files/temp_cleanup.hpp"
#include "run_shardmeter.hpp"
#include "tests/results_test_points.hpp"

using namespace shardmeter;
using shardmeter::test::ScratchDir;
using shardmeter::testing::read_text;
using shardmeter::testing::run_shardmeter;
namespace fs = std::filesystem;

namespace {

std::string error_of(auto&& f) {
  try {
    f();
  } catch (const results::OutputError& e) {
    return e.what();
  }
  return "";
}

bool is_char_device(const char* path) {
  struct stat st {};
  return ::stat(path, &st) == 0 && S_ISCHR(st.st_mode);
}

// Runs the binary with `args`, sends `signal_number` once a temporary file appears in `dir`, and returns the wait
// status. Fails the test when no temporary file appears within 20 s.
int signal_during_search(const ScratchDir& dir, int signal_number) {
  std::vector<std::string> args = {SHARDMETER_BINARY, "search", SHARDMETER_TEST_DATA_DIR "/search_long.yaml",
                                   "--method", "anneal", "--evaluations", "1000000000", "--quiet", "--all",
                                   "-o", (dir / "front.h5").string()};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&files, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  REQUIRE(posix_spawn(&pid, SHARDMETER_BINARY, &files, nullptr, argv.data(), environ) == 0);
  posix_spawn_file_actions_destroy(&files);
  bool temp_seen = false;
  for (int i = 0; i < 400 && !temp_seen; ++i) {
    for (const std::string& name : dir.files()) temp_seen = temp_seen || name.starts_with("front.h5.tmp.");
    if (!temp_seen) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ::kill(pid, signal_number);
  int status = 0;
  pid_t done = 0;
  for (int i = 0; i < 300 && done == 0; ++i) {
    done = ::waitpid(pid, &status, WNOHANG);
    if (done == 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (done == 0) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
  }
  CHECK(temp_seen);
  CHECK(done == pid);
  return status;
}

}  // namespace

TEST_CASE("temporary names are unpredictable and created exclusively; a planted symlink is never followed") {
  const ScratchDir dir;
  const fs::path out = dir / "report.html";
  // The old predictable name, planted as a symlink to a victim file.
  std::ofstream(dir / "victim") << "precious";
  fs::create_symlink(dir / "victim", fs::path(out.string() + ".tmp." + std::to_string(::getpid())));
  {
    results::AtomicFile a(out), b(out);
    CHECK(a.temp() != b.temp());
    CHECK_THAT(a.temp().filename().string(), Catch::Matches("report\\.html\\.tmp\\.[0-9a-f]{16}"));
    CHECK(fs::is_regular_file(fs::symlink_status(a.temp())));
  }  // neither committed: both removed
  results::write_text_atomically(out, "<html></html>");
  CHECK(read_text(dir / "victim") == "precious");
  CHECK(read_text(out) == "<html></html>");
  CHECK(dir.files() == std::vector<std::string>{"report.html", "report.html.tmp." + std::to_string(::getpid()), "victim"});
}

TEST_CASE("a replaced file keeps its permissions") {
  const ScratchDir dir;
  const fs::path out = dir / "front.csv";
  std::ofstream(out) << "old";
  fs::permissions(out, fs::perms::owner_read | fs::perms::owner_write);
  results::write_text_atomically(out, "new");
  CHECK(read_text(out) == "new");
  CHECK((fs::status(out).permissions() & fs::perms::all) == (fs::perms::owner_read | fs::perms::owner_write));
}

TEST_CASE("device nodes and FIFOs are written through, never replaced; HDF5 refuses them") {
  // Before: the temporary file was renamed over /dev/null (as root, /dev/null became a regular file).
  results::write_text_atomically("/dev/null", "a,b\n1,2\n");
  CHECK(is_char_device("/dev/null"));
  // /dev/full fails every write with ENOSPC: that is an error, not a success.
  CHECK_THAT(error_of([] { results::write_text_atomically("/dev/full", "a,b\n"); }),
             Catch::Equals("cannot write /dev/full: write failed: No space left on device"));
  CHECK(is_char_device("/dev/full"));
  CHECK_THAT(error_of([] { results::AtomicFile f("/dev/null", results::AtomicFile::Target::regular); }),
             Catch::Contains("not a regular file"));

  const ScratchDir dir;
  const fs::path fifo = dir / "pipe";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::string received;
  std::thread reader([&] { received = read_text(fifo); });
  results::write_text_atomically(fifo, "through the pipe\n");
  reader.join();
  CHECK(received == "through the pipe\n");
  CHECK(fs::is_fifo(fifo));
  CHECK(dir.files() == std::vector<std::string>{"pipe"});
}

TEST_CASE("the CLI writes --csv through /dev/null and reports /dev/full and a device given for -o") {
  auto r = run_shardmeter("search search_small.yaml --quiet --csv /dev/null");
  CHECK(r.status == 0);
  CHECK(is_char_device("/dev/null"));
  r = run_shardmeter("search search_small.yaml --quiet --csv /dev/full");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("cannot write /dev/full: write failed: No space left on device"));
  r = run_shardmeter("search search_small.yaml --quiet -o /dev/full");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("cannot write /dev/full: it is a device or pipe, not a regular file"));
}

TEST_CASE("a full disk during an HDF5 write: a plain message, status 2, the old file kept, no temporary file") {
  // A file-size limit (RLIMIT_FSIZE; SIGXFSZ ignored) fails writes with EFBIG exactly as a full tmpfs fails them
  // with ENOSPC. Before: the writer closed the failed file twice and crashed (exit 139), leaving *.tmp.<pid>.
  const ScratchDir dir;
  std::ofstream(dir / "front.h5") << "the previous result";
  for (const char* all : {"", "--all"}) {
    INFO("search " << all);
    const auto r = run_shardmeter(
        std::string("search search_small.yaml --quiet ") + all + " -o '" + (dir / "front.h5").string() + "'",
        SHARDMETER_TEST_DATA_DIR "' && trap '' XFSZ && ulimit -f 8 && cd '" SHARDMETER_TEST_DATA_DIR);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::StartsWith("shardmeter search: cannot write " + (dir / "front.h5").string() +
                                        ": writing the file failed: File too large"));
    CHECK_THAT(r.err, !Catch::Contains("H5"));
    CHECK(read_text(dir / "front.h5") == "the previous result");
    CHECK(dir.files() == std::vector<std::string>{"front.h5"});
  }
}

TEST_CASE("SIGTERM ends a search with its partial front (status 143); SIGHUP removes the temporary file and ends it") {
  // SIGTERM is how launchers and batch systems stop a job (issue 13): the search stops, writes the front found so
  // far marked complete = false, and exits 128 + 15. SIGHUP (a closed terminal) ends the process by that signal
  // after removing its temporary file.
  {
    const ScratchDir dir;
    const int status = signal_during_search(dir, SIGTERM);
    CHECK(WIFEXITED(status));
    CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 128 + SIGTERM));
    CHECK(dir.files() == std::vector<std::string>{"front.h5"});
  }
  {
    const ScratchDir dir;
    const int status = signal_during_search(dir, SIGHUP);
    CHECK(WIFSIGNALED(status));
    CHECK((WIFSIGNALED(status) && WTERMSIG(status) == SIGHUP));
    CHECK(dir.files().empty());
  }
}

TEST_CASE("the registry removes registered files and forgets unregistered ones") {
  const ScratchDir dir;
  std::ofstream(dir / "a") << "a";
  std::ofstream(dir / "b") << "b";
  const int a = results::register_temp((dir / "a").string());
  const int b = results::register_temp((dir / "b").string());
  REQUIRE(a >= 0);
  REQUIRE(b >= 0);
  results::unregister_temp(b);
  CHECK(results::remove_registered_temps() == 1);
  results::unregister_temp(a);
  CHECK(dir.files() == std::vector<std::string>{"b"});
}

TEST_CASE("search writes every output in full before replacing any: a failing one leaves the others in place") {
  // Before: --csv was renamed into place, then --json failed (disk full): half the outputs were new.
  const ScratchDir dir;
  std::ofstream(dir / "front.csv") << "old";
  const auto r = run_shardmeter("search search_small.yaml --quiet --csv '" + (dir / "front.csv").string() +
                                "' --json /dev/full");
  CHECK(r.status == 2);
  CHECK(read_text(dir / "front.csv") == "old");
  CHECK(dir.files() == std::vector<std::string>{"front.csv"});
}

TEST_CASE("an HDF5 front never replaces a read-only file; a writable one keeps its permissions") {
  // Issue 33: a file nobody may write is refused (it was replaced, keeping its 0440, before), even as root.
  const ScratchDir dir;
  std::ofstream(dir / "front.h5") << "old";
  fs::permissions(dir / "front.h5", fs::perms::owner_read | fs::perms::group_read);
  auto r = run_shardmeter("search search_small.yaml --quiet -o '" + (dir / "front.h5").string() + "'");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("it is read-only (mode 0440)"));
  CHECK(read_text(dir / "front.h5") == "old");
  fs::permissions(dir / "front.h5", fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  r = run_shardmeter("search search_small.yaml --quiet -o '" + (dir / "front.h5").string() + "'");
  CHECK(r.status == 0);
  CHECK((fs::status(dir / "front.h5").permissions() & fs::perms::all) ==
        (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read));
  CHECK(read_text(dir / "front.h5").starts_with("\x89HDF"));
  CHECK(dir.files() == std::vector<std::string>{"front.h5"});
}

TEST_CASE("Ctrl-C while the search axes are built ends the search at once, status 130, nothing left behind") {
  // An axis of 50,000 values takes seconds to build (about 17 s when written), during which Ctrl-C was ignored
  // until the search itself started.
  const ScratchDir dir;
  std::string scenario = read_text(SHARDMETER_TEST_DATA_DIR "/search_small.yaml");
  scenario += "    training.tokens: 1000000:50000000000:+1000000\n";  // appended to search.axes
  std::ofstream(dir / "slow.yaml") << scenario;
  std::vector<std::string> args = {SHARDMETER_BINARY, "search", (dir / "slow.yaml").string(), "--quiet", "-o",
                                   (dir / "front.h5").string()};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&files, STDERR_FILENO, (dir / "err.txt").c_str(), O_WRONLY | O_CREAT, 0644);
  pid_t pid = 0;
  REQUIRE(posix_spawn(&pid, SHARDMETER_BINARY, &files, nullptr, argv.data(), environ) == 0);
  posix_spawn_file_actions_destroy(&files);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ::kill(pid, SIGINT);
  const auto sent = std::chrono::steady_clock::now();
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK(std::chrono::steady_clock::now() - sent < std::chrono::milliseconds(1500));
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 130);
  CHECK(dir.files() == std::vector<std::string>{"err.txt", "slow.yaml"});
  CHECK(read_text(dir / "err.txt") ==
        "shardmeter search: interrupted (Ctrl-C) while building the search space; nothing was written\n");
}
