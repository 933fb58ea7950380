// libFuzzer harness: the HDF5 front reader as `report`, `export` and nightly's diff call it, on arbitrary bytes.
// An InputError naming the file is a correct answer; anything else (a crash or hang of this process) is a bug.
//
// What it exercises (docs/hardening.md "Fuzzing"):
// - bytes that do not start with "SMWIRE": an HDF5 file for the guarded read_front and read_all, which parse it
//   in a child process. A crash of libhdf5 in the child is a handled answer (InputError), so the fuzzer checks the
//   guard and the parent's decoding of the child's answer. The child copies its coverage counters into memory it
//   shares with this process before it exits, so libFuzzer is guided by what the parse reached;
// - bytes starting with "SMWIRE": frames of a child's answer (4-byte length, then the frame), given straight to
//   the parent's decoder (results/files/result_wire.hpp), which must refuse anything malformed with a WireError;
// - with SHARDMETER_FUZZ_IN_PROCESS=1 in the environment, the unguarded parser in this process instead: full
//   coverage and ASan reports of our own decoding code, but libhdf5's own crashes (H5HG_read, issue 14) end the
//   run too, so it is a tool for looking at our code, not a run expected to finish clean.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "child_coverage.hpp"
#include "fuzz_support.hpp"
#include "results/errors.hpp"
#include "results/files/hdf5_reader.hpp"
#include "results/files/result_wire.hpp"

namespace {

using namespace shardmeter;

// Runs a guarded read and merges the child's coverage counters into this process's.
template <class F>
void with_child_coverage(F&& read) {
  fuzz::child_coverage_reset();
  try {
    read();
  } catch (...) {
    fuzz::child_coverage_merge();
    throw;
  }
  fuzz::child_coverage_merge();
}

void decode_frames(std::string_view bytes) {
  results::wire::AnswerDecoder answer;
  try {
    while (bytes.size() >= 4) {
      const auto* h = reinterpret_cast<const unsigned char*>(bytes.data());
      const std::size_t n = std::size_t{h[0]} | std::size_t{h[1]} << 8 | std::size_t{h[2]} << 16 |
                            std::size_t{h[3]} << 24;
      bytes.remove_prefix(4);
      if (n > bytes.size()) return;   // run_isolated reports a frame cut short
      answer.frame(bytes.substr(0, n));
      bytes.remove_prefix(n);
    }
  } catch (const results::wire::WireError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  constexpr std::string_view kWire = "SMWIRE";
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  if (bytes.starts_with(kWire)) {
    decode_frames(bytes.substr(kWire.size()));
    return 0;
  }
  const std::string path = fuzz::scratch_file(data, size, "front.h5");
  static const bool in_process = std::getenv("SHARDMETER_FUZZ_IN_PROCESS") != nullptr;
  // A hang in the child is stopped after 5 s, well inside libFuzzer's -timeout=20 for the two reads.
  results::IsolationLimits limits;
  limits.idle_timeout = std::chrono::seconds(5);
  limits.before_child_exit = fuzz::child_coverage_copy_out;
  try {
    if (in_process) {
      const results::ResultFile file = results::in_process::read_front(path);
      if (file.has_all) results::in_process::for_each_all_row(path, [](const results::Row&) {});
    } else {
      bool has_all = false;
      with_child_coverage([&] { has_all = results::read_front(path, limits).has_all; });
      if (has_all) with_child_coverage([&] { (void)results::read_all(path, limits); });
    }
  } catch (const results::ResultsError&) {
  }
  return 0;
}
