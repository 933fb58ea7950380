#include "results/files/atomic_file.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>
#include <utility>

#include <fmt/format.h>

#include "results/errors.hpp"
#include "results/files/temp_cleanup.hpp"

namespace shardmeter::results {

namespace fs = std::filesystem;

namespace {

std::string errno_text(int error) { return std::generic_category().message(error); }

// 64 random bits as 16 hex digits: a name nobody can plant in advance.
std::string random_suffix() {
  unsigned long long bits = 0;
  if (::getrandom(&bits, sizeof bits, 0) != static_cast<ssize_t>(sizeof bits)) {
    // No entropy source: fall back to something unique to this process and moment (O_EXCL still protects).
    bits = static_cast<unsigned long long>(::getpid()) * 0x9E3779B97F4A7C15ull ^
           static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(&bits)) ^
           static_cast<unsigned long long>(::time(nullptr));
  }
  return fmt::format("{:016x}", bits);
}

}  // namespace

namespace {

// Whether the user may write the existing regular file: the rename would replace it whatever its permissions, so
// they are checked here (issue 33). Root may write anything, so for root the mode bits decide: a file that nobody
// may write (0444) is one its owner meant to keep. Others ask access(2).
bool user_may_write(const fs::path& target, const struct stat& st) {
  if (::geteuid() == 0) return (st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) != 0;
  return ::access(target.c_str(), W_OK) == 0;
}

// Why `target` cannot be written, or nothing; `existing` receives its stat (st_mode 0 when it does not exist).
void check_target(const fs::path& target, AtomicFile::Target kind, struct stat& existing) {
  const std::string out = target.string();
  if (target.empty()) throw OutputError(out, "the output path is empty");
  if (!target.has_filename()) throw OutputError(out, "the output path names a directory");
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw OutputError(out, "directory " + dir.string() + " does not exist");
  existing = {};
  if (::stat(target.c_str(), &existing) != 0) {
    existing.st_mode = 0;
    return;
  }
  if (S_ISDIR(existing.st_mode)) throw OutputError(out, "it is a directory");
  if (!S_ISREG(existing.st_mode) && kind == AtomicFile::Target::regular)
    throw OutputError(out, "it is a device or pipe, not a regular file (this format needs a regular file)");
  if (S_ISREG(existing.st_mode) && !user_may_write(target, existing))
    throw OutputError(out, fmt::format("it is read-only (mode {:04o}); refusing to replace a file you cannot write",
                                       existing.st_mode & 07777));
}

}  // namespace

void AtomicFile::check(const fs::path& target, Target kind) {
  struct stat existing {};
  check_target(target, kind, existing);
}

AtomicFile::AtomicFile(fs::path target, Target kind) : target_(std::move(target)) {
  const std::string out = target_.string();
  const fs::path dir = target_.has_parent_path() ? target_.parent_path() : fs::path(".");
  struct stat existing {};
  check_target(target_, kind, existing);
  if (existing.st_mode != 0 && !S_ISREG(existing.st_mode)) {
    // Write through, never replace: open without creating or truncating.
    fd_ = ::open(target_.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd_ < 0) throw OutputError(out, "cannot open it for writing: " + errno_text(errno));
    through_ = true;
    temp_ = target_;
    return;
  }

  // Registered before it is created: a signal between open(2) and the registration would end the process with the
  // file on disk and unknown to the cleanup (seen when Ctrl-C came just as a streamed sweep's front writer created
  // its own temporary file; other threads take the signal, so masking it here would not help). A signal before the
  // open only unlinks a name that does not exist yet: O_EXCL and the random suffix make it ours.
  for (int attempt = 0; fd_ < 0; ++attempt) {
    temp_ = target_;
    temp_ += ".tmp." + random_suffix();
    slot_ = register_temp(temp_.string());
    fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0666);
    if (fd_ >= 0) break;
    const int error = errno;
    unregister_temp(std::exchange(slot_, -1));
    if (error != EEXIST || attempt >= 16)
      throw OutputError(out, "cannot create a temporary file in " + dir.string() + ": " + errno_text(error));
  }
  live_ = true;
  if (S_ISREG(existing.st_mode)) mode_ = static_cast<int>(existing.st_mode & 07777);
}

std::string AtomicFile::open_path() const {
  if (fd_ < 0) return temp_.string();
  const std::string proc = "/proc/self/fd/" + std::to_string(fd_);
  struct stat via_proc {}, held {};
  if (::stat(proc.c_str(), &via_proc) == 0 && ::fstat(fd_, &held) == 0 && via_proc.st_dev == held.st_dev &&
      via_proc.st_ino == held.st_ino)
    return proc;
  return temp_.string();
}

AtomicFile::~AtomicFile() {
  if (!committed_) discard();
}

void AtomicFile::write(std::string_view bytes) {
  const char* p = bytes.data();
  std::size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(fd_, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = n < 0 ? errno : EIO;
      discard();
      throw OutputError(target_.string(), "write failed: " + errno_text(error));
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

void AtomicFile::commit() {
  const std::string out = target_.string();
  if (fd_ < 0) throw OutputError(out, "the file was already written or abandoned");
  if (through_) {
    const int fd = std::exchange(fd_, -1);
    if (::close(fd) != 0) throw OutputError(out, "write failed: " + errno_text(errno));
    committed_ = true;
    return;
  }
  // A replaced file keeps its permissions (the temporary file starts at 0666 minus the umask; set them only now, so
  // that a library can still open it for writing by name).
  if (mode_ >= 0) (void)::fchmod(fd_, static_cast<mode_t>(mode_));
  // Close ours and flush the file now at the temporary name (a library may have rewritten it by name), refusing
  // anything that is no longer a regular file there.
  if (::close(std::exchange(fd_, -1)) != 0) {
    const int error = errno;
    discard();
    throw OutputError(out, "write failed: " + errno_text(error));
  }
  const int fd = ::open(temp_.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  struct stat now {};
  if (fd < 0 || ::fstat(fd, &now) != 0 || !S_ISREG(now.st_mode)) {
    if (fd >= 0) ::close(fd);
    discard();
    throw OutputError(out, "the temporary file " + temp_.string() + " was replaced or removed while being written");
  }
  const bool synced = ::fsync(fd) == 0;
  const int sync_error = errno;
  ::close(fd);
  if (!synced) {
    discard();
    throw OutputError(out, "write failed: " + errno_text(sync_error));
  }
  if (::rename(temp_.c_str(), target_.c_str()) != 0) {  // rename(2): atomic replacement within one file system
    const int error = errno;
    discard();
    throw OutputError(out, "cannot replace it: " + errno_text(error));
  }
  unregister_temp(std::exchange(slot_, -1));
  committed_ = true;
  live_ = false;
}

void AtomicFile::discard() noexcept {
  if (fd_ >= 0) ::close(std::exchange(fd_, -1));
  if (live_ && !through_) ::unlink(temp_.c_str());
  live_ = false;
  unregister_temp(std::exchange(slot_, -1));
}

void write_text_to(AtomicFile& file, std::string_view text) { file.write(text); }

void write_text_atomically(const fs::path& path, std::string_view text) {
  AtomicFile file(path);
  file.write(text);
  file.commit();
}

}  // namespace shardmeter::results
