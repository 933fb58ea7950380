#pragma once
// Atomic output, the one way the tool writes a file. A regular target (or one that does not exist yet) is written
// to a new temporary file `<out>.tmp.<random>` in the same directory — created with O_CREAT|O_EXCL|O_NOFOLLOW, so
// a planted file or symlink is never written through — then fsync'ed and renamed over the target: a reader never
// sees a half-written result, and an error (or SIGINT/SIGTERM/SIGHUP, results/files/temp_cleanup.hpp) leaves
// nothing behind. A target that exists and is not a regular file (/dev/null, /dev/stdout, a FIFO) is never
// replaced: text is written through to it (errors such as /dev/full's are reported), and a file format that needs
// a regular file (HDF5) is refused.
#include <filesystem>
#include <string>
#include <string_view>

namespace shardmeter::results {

class AtomicFile {
public:
  enum class Target {
    stream,   // bytes written with write(): a non-regular target is written through
    regular,  // a file opened by name by a library (HDF5): a non-regular target is refused
  };
  // Checks the target and creates the temporary file. Throws OutputError (directory missing, target a directory,
  // a non-regular target for Target::regular, the temporary file cannot be created).
  explicit AtomicFile(std::filesystem::path target, Target kind = Target::stream);
  // The same checks, creating and opening nothing (to refuse a bad output before a long run).
  static void check(const std::filesystem::path& target, Target kind = Target::stream);
  ~AtomicFile();  // removes the temporary file unless commit() succeeded
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  const std::filesystem::path& target() const { return target_; }
  // The file to write: the temporary file, or the target itself when writing through.
  const std::filesystem::path& temp() const { return temp_; }
  bool writes_through() const { return through_; }
  // A name for a library that opens the file by name (HDF5): /proc/self/fd/N of the descriptor this object holds,
  // so that it opens the very file created with O_EXCL even if the directory entry was swapped meanwhile; temp()
  // where /proc is not mounted.
  std::string open_path() const;

  // Appends bytes (through the descriptor this object holds). Throws OutputError (disk full, /dev/full, ...).
  void write(std::string_view bytes);
  // Flushes to disk and renames the temporary file over the target (writing through: closes it). Throws
  // OutputError; the temporary file is then removed.
  void commit();
  // Removes the temporary file now (idempotent, never throws).
  void discard() noexcept;

private:
  std::filesystem::path target_;
  std::filesystem::path temp_;
  int fd_ = -1;
  int slot_ = -1;  // temp_cleanup registration
  bool through_ = false;
  bool committed_ = false;
  bool live_ = false;  // the temporary file exists
  int mode_ = -1;       // permissions of the regular file it replaces
};

// Writes `text` to `path` atomically (or through, for a non-regular target). Throws OutputError.
void write_text_atomically(const std::filesystem::path& path, std::string_view text);
// Writes `text` to the file's temporary file (commit() it, with others, when all are written). Throws OutputError.
void write_text_to(AtomicFile& file, std::string_view text);

}  // namespace shardmeter::results
