#pragma once
// Shared by the libFuzzer harnesses (tests/fuzz/*.cpp): the shipped catalog, loaded once, and a scratch directory
// and file for harnesses whose code under test reads a path.
#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>

#include "src/scenario/catalog.hpp"

namespace shardmeter::fuzz {

inline const cli::Catalog& shipped_catalog() {
  static const cli::Catalog catalog = cli::load_catalog(SHARDMETER_DATA_DIR);
  return catalog;
}

// The harness's scratch files live in one directory per process, TMPDIR/shardmeter_fuzz_<pid>/, removed when the
// process exits normally (libFuzzer after -max_total_time or -runs, the replay driver). A process that is killed
// cannot clean up (libFuzzer ends with _Exit on a timeout, a crash or the RSS limit), so creating the directory first
// removes what dead harness processes left: their directories and the files of older harnesses
// (shardmeter_fuzz_<pid>_front.h5, shardmeter_fuzz_catalog_<pid>/). A name whose process still runs is left alone.
class ScratchDir {
public:
  ScratchDir() {
    namespace fs = std::filesystem;
    const fs::path tmp = fs::temp_directory_path();
    std::error_code ec;
    for (fs::directory_iterator it(tmp, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      for (const std::string_view prefix : {"shardmeter_fuzz_catalog_", "shardmeter_fuzz_"}) {
        if (!name.starts_with(prefix)) continue;
        const std::string digits = name.substr(prefix.size(), name.find_first_not_of("0123456789", prefix.size()) -
                                                                  prefix.size());
        if (digits.empty() || digits.size() > 9) break;
        const pid_t pid = static_cast<pid_t>(std::stol(digits));
        if (pid != ::getpid() && ::kill(pid, 0) != 0 && errno == ESRCH) {
          std::error_code ignored;
          fs::remove_all(it->path(), ignored);
        }
        break;
      }
    }
    path_ = tmp / ("shardmeter_fuzz_" + std::to_string(::getpid()));
    fs::remove_all(path_, ec);
    fs::create_directories(path_);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir() {
    std::error_code ec;
    // A forked reader child ends with _exit and never gets here; only the process that made the directory removes it.
    if (owner_ == ::getpid()) std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

private:
  std::filesystem::path path_;
  pid_t owner_ = ::getpid();
};

inline const std::filesystem::path& scratch_dir() {
  static const ScratchDir dir;
  return dir.path();
}

// Writes the input to a file of the scratch directory (the harnesses run one input at a time) and returns its path.
inline std::string scratch_file(const std::uint8_t* data, std::size_t size, const char* name) {
  const std::filesystem::path path = scratch_dir() / name;
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data),
                                                               static_cast<std::streamsize>(size));
  return path.string();
}

}  // namespace shardmeter::fuzz
