#pragma once
// Standard output written to the end and checked (issue 33): a stream buffer over a file descriptor that writes
// with write(2), retries short writes and EINTR, and remembers the first failure with its errno, so that main() can
// turn `export ... > /dev/full` (ENOSPC) or a reader that closed its pipe (EPIPE, SIGPIPE being ignored) into a
// located message and exit status 2 instead of a silent truncation.
#include <array>
#include <streambuf>

namespace shardmeter::cli {

class CheckedOutput : public std::streambuf {
public:
  explicit CheckedOutput(int fd) : fd_(fd) { setp(buffer_.data(), buffer_.data() + buffer_.size()); }
  CheckedOutput(const CheckedOutput&) = delete;
  CheckedOutput& operator=(const CheckedOutput&) = delete;

  // 0 while every byte was written; otherwise the errno of the first failed write (EIO for a write of 0 bytes).
  int error() const { return error_; }

protected:
  int_type overflow(int_type c) override;
  int sync() override;

private:
  bool drain();   // writes the buffered bytes; false (and error_ set) on failure

  int fd_;
  int error_ = 0;
  std::array<char, 1 << 16> buffer_{};
};

}  // namespace shardmeter::cli
