#pragma once
// Text that the store, the reports and the recorded spaces all write.

#include <charconv>
#include <string>
#include <string_view>
#include <vector>

namespace blocktune {

// The shortest text that reads back as the same double.
inline std::string exact_text(double value) {
  char buffer[32];
  return {buffer, std::to_chars(buffer, buffer + sizeof buffer, value).ptr};
}

// Several, separated by spaces: how the store keeps a trial's samples.
inline std::string exact_text(const std::vector<double>& values) {
  std::string text;
  for (const double value : values) {
    if (!text.empty()) text += ' ';
    text += exact_text(value);
  }
  return text;
}

// `field` appended to a CSV record (RFC 4180): quoted where it holds a comma,
// quote or line break, its quotes doubled.
inline void append_csv_field(std::string& record, std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) {
    record += field;
    return;
  }
  record += '"';
  for (const char c : field) {
    if (c == '"') record += '"';
    record += c;
  }
  record += '"';
}

}  // namespace blocktune
