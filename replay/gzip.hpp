#pragma once
// Whole-file reading and writing, gzip-compressed or not, through zlib (replay/ only).

#include <filesystem>
#include <string>
#include <string_view>

namespace blocktune::detail {

// The file's text, decompressed if it is gzip, as it is otherwise. Throws
// std::runtime_error naming the file.
std::string read_text_file(const std::filesystem::path& path);

// The file's first lines that start with `marker` (a header), decompressed
// as read_text_file does, without reading the rest. Throws
// std::runtime_error naming the file.
std::string read_leading_lines(const std::filesystem::path& path, char marker);

// Writes `text`, gzip-compressed where `compress` says so (the output then
// depends only on the text: no name or time in its header), next to the file
// and then renamed, so that a failure never leaves a half-written file.
// Throws std::runtime_error naming the file.
void write_text_file(const std::filesystem::path& path, std::string_view text, bool compress);

}  // namespace blocktune::detail
