#include "results/files/temp_cleanup.hpp"

#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstring>
#include <limits.h>

namespace shardmeter::results {

namespace {

constexpr std::size_t kSlots = 64;

// A slot is claimed (free -> writing), filled, then published (writing -> used); the handler only reads published
// slots. Plain char arrays and lock-free atomics: all a signal handler may touch.
enum State : int { kFree = 0, kWriting = 1, kUsed = 2 };
struct Slot {
  std::atomic<int> state{kFree};
  char path[PATH_MAX];
};
std::array<Slot, kSlots> g_slots;
static_assert(std::atomic<int>::is_always_lock_free);

extern "C" void on_terminating_signal(int signal_number) {
  remove_registered_temps();
  // End as the signal would have: default action, unblocked, raised again.
  struct sigaction action {};
  action.sa_handler = SIG_DFL;
  sigemptyset(&action.sa_mask);
  sigaction(signal_number, &action, nullptr);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, signal_number);
  sigprocmask(SIG_UNBLOCK, &set, nullptr);
  raise(signal_number);
}

}  // namespace

void install_temp_cleanup() {
  // A reader that closes its end of a pipe or FIFO early makes write() fail with EPIPE instead of killing the
  // process with SIGPIPE: the write is then reported like any other failed write (exit 2) and every temporary file
  // is removed by its owner (issue 33). A forked reader child restores the default action.
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGPIPE, &ignore, nullptr);
  for (const int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction previous {};
    sigaction(signal_number, nullptr, &previous);
    if (previous.sa_handler == SIG_IGN) continue;  // e.g. started under nohup: keep ignoring it
    struct sigaction action {};
    action.sa_handler = on_terminating_signal;
    sigemptyset(&action.sa_mask);
    sigaction(signal_number, &action, nullptr);
  }
}

int register_temp(const std::string& path) noexcept {
  if (path.size() >= PATH_MAX) return -1;
  for (std::size_t i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (!g_slots[i].state.compare_exchange_strong(expected, kWriting)) continue;
    std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
    g_slots[i].state.store(kUsed, std::memory_order_release);
    return static_cast<int>(i);
  }
  return -1;
}

void unregister_temp(int slot) noexcept {
  if (slot >= 0 && static_cast<std::size_t>(slot) < kSlots)
    g_slots[static_cast<std::size_t>(slot)].state.store(kFree, std::memory_order_release);
}

std::size_t remove_registered_temps() noexcept {
  std::size_t removed = 0;
  for (Slot& slot : g_slots)
    if (slot.state.load(std::memory_order_acquire) == kUsed && ::unlink(slot.path) == 0) ++removed;
  return removed;
}

}  // namespace shardmeter::results
