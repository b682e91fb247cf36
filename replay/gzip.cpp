#include "gzip.hpp"

#include <blocktune/output_file.hpp>

#include <fmt/format.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <system_error>

namespace blocktune::detail {

namespace {

struct GzClose {
  void operator()(gzFile file) const { gzclose(file); }
};
using GzFile = std::unique_ptr<gzFile_s, GzClose>;

std::string gz_error(gzFile file) {
  int code = Z_OK;
  const char* message = gzerror(file, &code);
  return code == Z_ERRNO ? std::strerror(errno) : message;
}

}  // namespace

std::string read_text_file(const std::filesystem::path& path) {
  // gzread passes a file that is not gzip through unchanged.
  const GzFile file(gzopen(path.c_str(), "rb"));
  if (!file) throw std::runtime_error(fmt::format("cannot open '{}': {}", path.string(), std::strerror(errno)));
  std::string text;
  char buffer[1 << 16];
  while (true) {
    const int read = gzread(file.get(), buffer, sizeof buffer);
    if (read < 0) throw std::runtime_error(fmt::format("cannot read '{}': {}", path.string(), gz_error(file.get())));
    if (read == 0) break;
    text.append(buffer, static_cast<std::size_t>(read));
  }
  return text;
}

std::string read_leading_lines(const std::filesystem::path& path, char marker) {
  const GzFile file(gzopen(path.c_str(), "rb"));
  if (!file) throw std::runtime_error(fmt::format("cannot open '{}': {}", path.string(), std::strerror(errno)));
  std::string text;
  char buffer[1 << 12];
  for (bool line_start = true; gzgets(file.get(), buffer, sizeof buffer);) {
    const std::string_view piece(buffer);
    if (line_start && !piece.starts_with(marker)) return text;
    text += piece;
    line_start = piece.ends_with('\n');
  }
  if (!gzeof(file.get())) throw std::runtime_error(fmt::format("cannot read '{}': {}", path.string(), gz_error(file.get())));
  return text;
}

void write_text_file(const std::filesystem::path& path, std::string_view text, bool compress) {
  OutputFile output(path);
  try {
    // Mode "T" writes through zlib without compressing.
    GzFile file(gzopen(output.path().c_str(), compress ? "wb9" : "wbT"));
    if (!file) throw std::runtime_error(std::strerror(errno));
    // gzwrite takes an unsigned count: write in pieces that surely fit.
    constexpr std::size_t kPiece = 1 << 20;
    for (std::size_t start = 0; start < text.size(); start += kPiece) {
      const std::string_view piece = text.substr(start, kPiece);
      if (gzwrite(file.get(), piece.data(), static_cast<unsigned>(piece.size())) != static_cast<int>(piece.size()))
        throw std::runtime_error(gz_error(file.get()));
    }
    // Where the disk fills up: zlib writes what it buffered here.
    if (const int code = gzclose(file.release()); code != Z_OK)
      throw std::runtime_error(code == Z_ERRNO ? std::strerror(errno) : "the compressed data could not be flushed");
  } catch (const std::exception& error) {
    throw std::runtime_error(fmt::format("cannot write '{}': {}", path.string(), error.what()));
  }
  output.commit();
}

}  // namespace blocktune::detail
