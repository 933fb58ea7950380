#pragma once
// Runs the built shardmeter binary (SHARDMETER_BINARY) in a given directory and captures its exit status,
// stdout and stderr. For tests of the CLI's contract: exit statuses, one-line error messages, JSON output.
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace shardmeter::testing {

struct CliResult {
  int status = -1;
  std::string out;
  std::string err;
};

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// `args` is shell text (quote values with spaces); runs `cd cwd && shardmeter args`.
inline CliResult run_shardmeter(const std::string& args, const std::string& cwd = SHARDMETER_TEST_DATA_DIR) {
  static std::atomic<int> counter{0};
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("shardmeter_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  std::filesystem::create_directories(dir);
  const std::string command = "cd '" + cwd + "' && '" SHARDMETER_BINARY "' " + args + " > '" +
                              (dir / "out").string() + "' 2> '" + (dir / "err").string() + "'";
  const int raw = std::system(command.c_str());
  CliResult result;
  result.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  result.out = read_text(dir / "out");
  result.err = read_text(dir / "err");
  std::filesystem::remove_all(dir);
  return result;
}

}  // namespace shardmeter::testing
