#pragma once
// Atomic output: write to `<out>.tmp.<pid>` in the same directory, rename over `<out>` on success, remove the
// temporary file on failure. A reader never sees a half-written result, and an error leaves nothing behind.
#include <filesystem>
#include <string>
#include <string_view>

namespace shardmeter::results {

class AtomicFile {
public:
  // Names the temporary file; creates nothing. Throws OutputError when the target's directory does not exist.
  explicit AtomicFile(std::filesystem::path target);
  ~AtomicFile();  // removes the temporary file unless commit() succeeded
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  const std::filesystem::path& target() const { return target_; }
  const std::filesystem::path& temp() const { return temp_; }
  // Renames the (closed) temporary file over the target. Throws OutputError; the temporary file is then removed.
  void commit();
  // Removes the temporary file now (idempotent, never throws).
  void discard() noexcept;

private:
  std::filesystem::path target_;
  std::filesystem::path temp_;
  bool committed_ = false;
};

// Writes `text` to `path` atomically. Throws OutputError.
void write_text_atomically(const std::filesystem::path& path, std::string_view text);
// Writes `text` to the file's temporary file (commit() it, with others, when all are written). Throws OutputError.
void write_text_to(const AtomicFile& file, std::string_view text);

}  // namespace shardmeter::results
