#include "results/files/atomic_file.hpp"

#include <unistd.h>

#include <fstream>
#include <system_error>
#include <utility>

#include "results/errors.hpp"

namespace shardmeter::results {

namespace fs = std::filesystem;

AtomicFile::AtomicFile(fs::path target) : target_(std::move(target)) {
  if (target_.empty()) throw OutputError(target_.string(), "empty output path");
  if (!target_.has_filename()) throw OutputError(target_.string(), "output path names a directory");
  const fs::path dir = target_.has_parent_path() ? target_.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw OutputError(target_.string(), "directory " + dir.string() + " does not exist");
  if (fs::is_directory(target_, ec)) throw OutputError(target_.string(), "is a directory");
  temp_ = target_;
  temp_ += ".tmp." + std::to_string(::getpid());
}

AtomicFile::~AtomicFile() {
  if (!committed_) discard();
}

void AtomicFile::commit() {
  std::error_code ec;
  fs::rename(temp_, target_, ec);  // POSIX rename(2): atomic replacement within one file system
  if (ec) {
    discard();
    throw OutputError(target_.string(), "cannot rename " + temp_.string() + ": " + ec.message());
  }
  committed_ = true;
}

void AtomicFile::discard() noexcept {
  std::error_code ec;
  fs::remove(temp_, ec);
}

void write_text_to(const AtomicFile& file, std::string_view text) {
  std::ofstream out(file.temp(), std::ios::binary | std::ios::trunc);
  if (!out) throw OutputError(file.target().string(), "cannot create " + file.temp().string());
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  if (!out) throw OutputError(file.target().string(), "write to " + file.temp().string() + " failed");
}

void write_text_atomically(const fs::path& path, std::string_view text) {
  AtomicFile file(path);
  write_text_to(file, text);
  file.commit();
}

}  // namespace shardmeter::results
