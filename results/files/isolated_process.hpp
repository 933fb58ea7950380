#pragma once
// Running untrusted parsing in a forked child process (POSIX: fork, pipe, poll, waitpid). libhdf5 follows
// addresses a corrupt file supplies without checking them (issue 14: a variable-length string attribute whose
// global heap object claims 2^40 bytes crashes H5HG_read), and the public API cannot check them first; so the
// reader of foreign result files runs in a child, and a crash, abort, sanitizer report or hang there ends the
// child only. The child sends its result as frames through a pipe; the parent validates each frame as it arrives.
// docs/hardening.md "Reading foreign HDF5 files" explains the choice.
#include <chrono>
#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace shardmeter::results {

// The child's end of the pipe. send() writes one frame (a 4-byte little-endian length, then the bytes).
class FrameSink {
public:
  explicit FrameSink(int fd) : fd_(fd) {}
  void send(std::string_view frame);   // throws std::runtime_error when the parent went away

private:
  int fd_;
};

// Why the child did not deliver a complete answer; what() in plain words, e.g. "the reader process crashed
// (signal 11, Segmentation fault)".
class ChildFailure : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

struct IsolationLimits {
  // The child is killed when it sends nothing for this long (a loop in the library on a corrupt file, or a read that
  // blocks). Progress restarts it: a large /all streamed row block by row block never times out.
  std::chrono::milliseconds idle_timeout{20000};
  // The child is killed when it uses this much processor time without sending a frame: a corrupt global heap makes
  // libhdf5's parser loop forever (H5HG__cache_heap_deserialize on an object of size 0), which a wall-clock limit
  // alone lets run for idle_timeout. Processor time, not wall time, so that a loaded machine or a slow disk does not
  // look like a loop: the readers send a frame per block of rows (at most 16 MiB read and decoded), which takes well
  // under 0.5 s of processor time. Zero: no such limit.
  std::chrono::milliseconds cpu_idle_timeout{2000};
  // The child is killed when its resident memory grows by more than this over the parent's at the fork: a corrupt
  // variable-length string that claims gigabytes makes libhdf5 allocate, clear and copy them (a 19 KB front took
  // 4.5 GB and 18 s before, issue 33). The readers hold at most a block of rows at a time. Zero: no such limit.
  std::size_t max_memory_growth_bytes = std::size_t{1} << 30;
  std::size_t max_frame_bytes = std::size_t{1} << 30;   // a longer frame is a broken child
  // Called in the child just before it exits normally (the fuzz harness copies the child's coverage counters to
  // memory it shares with its parent, so that libFuzzer sees what the parse reached). Null: nothing.
  void (*before_child_exit)() = nullptr;
};

// Forks; the child runs `child(sink)` and ends with _exit (no atexit handlers, no stdio flush of the parent's
// buffers, no sanitizer leak report); an exception escaping `child` ends it with status 3 (callers that want an
// error to reach the parent send it as a frame). The parent calls `on_frame` for every frame, in order, as it arrives; an exception from `on_frame` kills
// and reaps the child and propagates. Returns normally when the child exited with status 0 after closing the pipe;
// otherwise throws the ChildFailure (a crash, an abort, a non-zero exit, a frame cut short, one of the limits above,
// or fork/pipe failing). The limits are checked every 50 ms; memory and processor time are measured through
// /proc/PID/statm and the child's CPU-time clock (clock_getcpuclockid), and a limit that cannot be measured there
// is not applied. When the status cannot be known (SIGCHLD set to SIG_IGN, inherited through exec), only a
// cut-short frame is detected: callers end their protocol with a final frame and check that it arrived. The child
// never outlives this call: every path kills (SIGKILL) and reaps it.
//
// In the child SIGINT, SIGTERM, SIGHUP and SIGPIPE get their default actions (a Ctrl-C reaches the whole process
// group and ends the child too; it must not run the parent's temporary-file cleanup), stdin, stdout and stderr
// are /dev/null (libhdf5's and a sanitizer's reports about a hostile file are not the user's
// message), a sanitizer's death callback is cleared (libFuzzer's would write a crash artifact for a crash that is
// handled), and on Linux the child is killed when the parent dies.
void run_isolated(const std::function<void(FrameSink&)>& child, const std::function<void(std::string_view)>& on_frame,
                  const IsolationLimits& limits = {});

}  // namespace shardmeter::results
