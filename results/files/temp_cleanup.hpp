#pragma once
// Temporary files that a signal must not leave behind. AtomicFile registers each temporary file from just before it
// creates it (so no signal finds it on disk and unregistered) until it is renamed or removed;
// once install_temp_cleanup() has run, SIGINT, SIGTERM and SIGHUP remove every registered file and then
// end the process as the signal would have (a handler installed later for SIGINT, such as search's, takes over
// that signal while it is installed). SIGKILL cannot be caught: a file it orphans is named `<out>.tmp.<random>`.
#include <cstddef>
#include <string>

namespace shardmeter::results {

// Installs the handlers (idempotent) and ignores SIGPIPE (a write to a closed pipe then fails with EPIPE and is
// reported as an error with exit 2). Call once, early in main().
void install_temp_cleanup();

// Registers `path` for removal on a signal; returns a slot for unregister_temp(), or -1 when all slots are taken
// (at most 64 temporary files at once; the file is then only removed by its owner).
int register_temp(const std::string& path) noexcept;
void unregister_temp(int slot) noexcept;

// Removes every registered file now (what the handlers do; async-signal-safe). Returns how many were removed.
std::size_t remove_registered_temps() noexcept;

}  // namespace shardmeter::results
