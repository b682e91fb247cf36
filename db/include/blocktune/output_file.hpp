#pragma once
// Where a command writes an output file (a database export, a report, a
// recorded space): beside it, as FILE.partial, renamed over it once complete,
// so that a failed write (a full disk, a kill) never leaves a half-written
// file in place of a good one. A target that exists and is not a regular file
// (/dev/full, a FIFO) is written into: renaming over it would replace it.

#include <filesystem>
#include <system_error>
#include <utility>

namespace blocktune {

class OutputFile {
 public:
  explicit OutputFile(std::filesystem::path target) : target_(std::move(target)), path_(target_) {
    std::error_code error;
    const auto status = std::filesystem::status(target_, error);
    if (!std::filesystem::exists(status) || std::filesystem::is_regular_file(status)) path_ += ".partial";
  }
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  // Removes what was written unless commit() was called.
  ~OutputFile() {
    std::error_code ignored;
    if (!committed_ && path_ != target_) std::filesystem::remove(path_, ignored);
  }

  const std::filesystem::path& path() const { return path_; }  // where to write
  // Once path() is written and closed: it becomes the target.
  void commit() {
    if (path_ != target_) std::filesystem::rename(path_, target_);
    committed_ = true;
  }

 private:
  std::filesystem::path target_, path_;
  bool committed_ = false;
};

}  // namespace blocktune
