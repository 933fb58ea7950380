#include "results/files/isolated_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

#include <time.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <string>

#include <fmt/format.h>

// Present when a sanitizer runtime is linked (ASan, UBSan, libFuzzer's builds); null otherwise.
extern "C" void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

namespace shardmeter::results {

namespace {

bool write_all(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

class Fd {
public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  int get() const { return fd_; }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

private:
  int fd_;
};

// Kills (SIGKILL) and reaps the child unless it was reaped already: no path out of run_isolated leaves it behind.
class Child {
public:
  explicit Child(pid_t pid) : pid_(pid) {}
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    (void)wait();
  }
  // waitpid's status, or -1 when it cannot be known (SIGCHLD ignored: the kernel reaped it).
  int wait() {
    int status = 0;
    pid_t r;
    do {
      r = ::waitpid(pid_, &status, 0);
    } while (r < 0 && errno == EINTR);
    pid_ = 0;
    return r < 0 ? -1 : status;
  }

private:
  pid_t pid_;
};

// In the child, before the work: see the header.
void prepare_child(pid_t parent) {
  for (const int s : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) {
    struct sigaction action {};
    action.sa_handler = SIG_DFL;
    sigemptyset(&action.sa_mask);
    sigaction(s, &action, nullptr);
  }
  sigset_t all;
  sigemptyset(&all);
  sigprocmask(SIG_SETMASK, &all, nullptr);
#if defined(__linux__)
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(4);  // the parent died before prctl
#else
  (void)parent;
#endif
  const int null = ::open("/dev/null", O_RDWR);
  if (null >= 0) {
    ::dup2(null, STDIN_FILENO);
    ::dup2(null, STDOUT_FILENO);
    ::dup2(null, STDERR_FILENO);
    if (null > STDERR_FILENO) ::close(null);
  }
  if (__sanitizer_set_death_callback != nullptr) __sanitizer_set_death_callback(nullptr);
}

// Resident memory of a process in bytes (/proc/PID/statm, "self" for this one), or nothing where it cannot be read.
std::optional<std::size_t> resident_bytes(const std::string& pid) {
  std::FILE* f = std::fopen(("/proc/" + pid + "/statm").c_str(), "r");
  if (f == nullptr) return std::nullopt;
  unsigned long long size = 0, resident = 0;
  const bool ok = std::fscanf(f, "%llu %llu", &size, &resident) == 2;
  std::fclose(f);
  const long page = ::sysconf(_SC_PAGESIZE);
  if (!ok || page <= 0) return std::nullopt;
  return static_cast<std::size_t>(resident) * static_cast<std::size_t>(page);
}

// The child's processor time (user + system), or nothing where it cannot be read.
std::optional<std::chrono::nanoseconds> cpu_time(const std::optional<clockid_t>& clock) {
  timespec t{};
  if (!clock || ::clock_gettime(*clock, &t) != 0) return std::nullopt;
  return std::chrono::seconds(t.tv_sec) + std::chrono::nanoseconds(t.tv_nsec);
}

// Watches the child's memory and processor time against the limits (IsolationLimits).
class Budget {
public:
  Budget(pid_t child, std::size_t parent_resident, const IsolationLimits& limits)
      : pid_(std::to_string(child)), parent_resident_(parent_resident), limits_(limits) {
    clockid_t clock;
    if (::clock_getcpuclockid(child, &clock) == 0) clock_ = clock;
    progress();
  }
  // A frame arrived: the processor time since counts afresh.
  void progress() { cpu_at_progress_ = cpu_time(clock_); }
  // Throws the ChildFailure of an exceeded limit.
  void check() const {
    if (limits_.max_memory_growth_bytes > 0 && parent_resident_ > 0)
      if (const auto rss = resident_bytes(pid_); rss && *rss > parent_resident_ + limits_.max_memory_growth_bytes)
        throw ChildFailure(fmt::format("the reader process needed more than {} MiB of memory and was stopped",
                                       limits_.max_memory_growth_bytes >> 20));
    if (limits_.cpu_idle_timeout.count() > 0 && cpu_at_progress_)
      if (const auto now = cpu_time(clock_); now && *now - *cpu_at_progress_ > limits_.cpu_idle_timeout)
        throw ChildFailure(fmt::format("the reader process used {} s of processor time without progress and was stopped",
                                       std::chrono::duration<double>(limits_.cpu_idle_timeout).count()));
  }

private:
  std::string pid_;
  std::size_t parent_resident_;
  const IsolationLimits& limits_;
  std::optional<clockid_t> clock_;
  std::optional<std::chrono::nanoseconds> cpu_at_progress_;
};

std::string describe(int status) {
  if (WIFSIGNALED(status)) {
    const int s = WTERMSIG(status);
    return fmt::format("the reader process crashed (signal {}, {})", s, ::strsignal(s));
  }
  if (WIFEXITED(status)) return fmt::format("the reader process failed (status {})", WEXITSTATUS(status));
  return "the reader process ended abnormally";
}

}  // namespace

void FrameSink::send(std::string_view frame) {
  if (frame.size() > std::numeric_limits<std::uint32_t>::max()) throw std::runtime_error("frame too long");
  const auto n = static_cast<std::uint32_t>(frame.size());
  const char header[4] = {static_cast<char>(n & 0xff), static_cast<char>((n >> 8) & 0xff),
                          static_cast<char>((n >> 16) & 0xff), static_cast<char>((n >> 24) & 0xff)};
  if (!write_all(fd_, header, sizeof header) || !write_all(fd_, frame.data(), frame.size()))
    throw std::runtime_error("the parent closed the pipe");
}

void run_isolated(const std::function<void(FrameSink&)>& child, const std::function<void(std::string_view)>& on_frame,
                  const IsolationLimits& limits) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    throw ChildFailure(fmt::format("cannot start the reader process: {}", std::strerror(errno)));
  Fd read_end(fds[0]);
  Fd write_end(fds[1]);
  const pid_t parent = ::getpid();
  // The child starts with the parent's resident pages (shared until written): its growth is measured from here.
  const std::size_t parent_resident = resident_bytes("self").value_or(0);
  const pid_t pid = ::fork();
  if (pid < 0) throw ChildFailure(fmt::format("cannot start the reader process: {}", std::strerror(errno)));
  if (pid == 0) {
    ::close(fds[0]);
    prepare_child(parent);
    int status = 0;
    try {
      FrameSink sink(fds[1]);
      child(sink);
    } catch (...) {
      status = 3;
    }
    if (limits.before_child_exit != nullptr) limits.before_child_exit();
    ::close(fds[1]);
    ::_exit(status);
  }
  Child guard(pid);
  write_end.reset();  // EOF arrives when the child's end closes
  Budget budget(pid, parent_resident, limits);

  using clock = std::chrono::steady_clock;
  std::string buffer;
  std::size_t consumed = 0;
  char chunk[1 << 16];
  clock::time_point deadline = clock::now() + limits.idle_timeout;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now()).count();
    if (left <= 0)
      throw ChildFailure(fmt::format("the reader process made no progress for {} s and was stopped",
                                     std::chrono::duration<double>(limits.idle_timeout).count()));
    budget.check();
    pollfd p{read_end.get(), POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 50)));
    if (ready < 0) {
      if (errno == EINTR) continue;
      throw ChildFailure(fmt::format("waiting for the reader process failed: {}", std::strerror(errno)));
    }
    if (ready == 0) continue;
    const ssize_t n = ::read(read_end.get(), chunk, sizeof chunk);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      throw ChildFailure(fmt::format("reading from the reader process failed: {}", std::strerror(errno)));
    }
    if (n == 0) break;
    buffer.append(chunk, static_cast<std::size_t>(n));
    while (buffer.size() - consumed >= 4) {
      const auto* h = reinterpret_cast<const unsigned char*>(buffer.data() + consumed);
      const std::size_t length = std::size_t{h[0]} | std::size_t{h[1]} << 8 | std::size_t{h[2]} << 16 |
                                 std::size_t{h[3]} << 24;
      if (length > limits.max_frame_bytes)
        throw ChildFailure(fmt::format("the reader process sent a frame of {} bytes", length));
      if (buffer.size() - consumed - 4 < length) break;
      on_frame(std::string_view(buffer.data() + consumed + 4, length));
      consumed += 4 + length;
    }
    if (consumed == buffer.size() || consumed > (std::size_t{1} << 20)) {
      buffer.erase(0, consumed);
      consumed = 0;
    }
    // After the frames are handled: time the parent spends in on_frame (a slow consumer of /all) is not the
    // child's.
    deadline = clock::now() + limits.idle_timeout;
    budget.progress();
  }
  read_end.reset();
  const int status = guard.wait();
  // Unknown status (SIGCHLD ignored): the caller's protocol (a final frame) still tells a complete answer.
  if (status != -1 && (!WIFEXITED(status) || WEXITSTATUS(status) != 0)) throw ChildFailure(describe(status));
  if (consumed != buffer.size()) throw ChildFailure("the reader process's answer was cut short");
}

}  // namespace shardmeter::results
