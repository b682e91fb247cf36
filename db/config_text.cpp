#include <blocktune/config_text.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace blocktune {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::string_view trim(std::string_view text) {
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

bool looks_like_integer(std::string_view text) {
  if (text.starts_with('-')) text.remove_prefix(1);
  return !text.empty() && std::ranges::all_of(text, [](char c) { return c >= '0' && c <= '9'; });
}

// Characters a bare value may not hold: they would end it or start a quoted one.
constexpr std::string_view quoted_only = "=\"'\\";

// A bare value reads back as this entry: not empty, nothing quoted_only, no
// comma, no spaces (which reading drops at its ends), and integer-looking
// exactly when it is an integer.
bool reads_back_bare(const ConfigEntry& entry) {
  return !entry.value.empty() && looks_like_integer(entry.value) == entry.integer &&
         std::ranges::none_of(entry.value, [](char c) { return c == ',' || is_space(c) || quoted_only.find(c) != quoted_only.npos; });
}

class ConfigTextReader {
 public:
  explicit ConfigTextReader(std::string_view text) : text_(text) {}

  std::vector<ConfigEntry> read() {
    std::vector<ConfigEntry> entries;
    skip_space();
    while (position_ < text_.size()) {
      const std::size_t end = text_.find_first_of(",=", position_);
      if (end == std::string_view::npos || text_[end] != '=') fail(position_, "expected 'name=value'");
      const std::string_view name = trim(text_.substr(position_, end - position_));
      if (!is_parameter_name(name)) fail(position_, fmt::format("'{}' is not a parameter name", name));
      position_ = end + 1;
      entries.push_back(read_value(name));
      skip_space();
      if (position_ == text_.size()) break;
      if (text_[position_] != ',') fail(position_, fmt::format("expected ',' after the value of '{}'", name));
      ++position_;
      skip_space();
      if (position_ == text_.size()) fail(position_, "expected 'name=value' after the last ','");
    }
    return entries;
  }

 private:
  ConfigEntry read_value(std::string_view name) {
    skip_space();
    if (position_ < text_.size() && text_[position_] == '"') return read_quoted(name);
    const std::size_t start = position_;
    position_ = std::min(text_.find(',', position_), text_.size());
    const std::string_view value = trim(text_.substr(start, position_ - start));
    if (value.empty()) fail(start, fmt::format("'{}' has no value", name));
    if (const std::size_t special = value.find_first_of(quoted_only); special != std::string_view::npos)
      fail(static_cast<std::size_t>(value.data() - text_.data()) + special,
           fmt::format("the value of '{}' must be quoted: it holds '{}'", name, value[special]));
    return {std::string(name), std::string(value), looks_like_integer(value)};
  }

  ConfigEntry read_quoted(std::string_view name) {
    const std::size_t opening_quote = position_;
    std::string value;
    for (++position_; position_ < text_.size() && text_[position_] != '"'; ++position_) {
      if (text_[position_] == '\\' && position_ + 1 < text_.size()) ++position_;
      value += text_[position_];
    }
    if (position_ == text_.size()) fail(opening_quote, fmt::format("the value of '{}' has no closing quote", name));
    ++position_;
    return {std::string(name), std::move(value), false};
  }

  void skip_space() {
    while (position_ < text_.size() && is_space(text_[position_])) ++position_;
  }

  [[noreturn]] void fail(std::size_t position, std::string_view what) const {
    const std::string where = position == text_.size() ? "at its end" : fmt::format("at character {}", position + 1);
    throw std::invalid_argument(fmt::format("invalid configuration '{}' {}: {}", text_, where, what));
  }

  std::string_view text_;
  std::size_t position_ = 0;
};

}  // namespace

bool is_parameter_name(std::string_view name) {
  const auto starts = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  const auto continues = [&](char c) { return starts(c) || (c >= '0' && c <= '9') || c == '.'; };
  return !name.empty() && starts(name.front()) && std::all_of(name.begin() + 1, name.end(), continues);
}

std::vector<ConfigEntry> parse_config_text(std::string_view text) { return ConfigTextReader(text).read(); }

std::string format_config_text(std::span<const ConfigEntry> entries) {
  std::string text;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const ConfigEntry& entry = entries[i];
    if (i > 0) text += ',';
    text += entry.name;
    text += '=';
    if (reads_back_bare(entry)) {
      text += entry.value;
      continue;
    }
    text += '"';
    for (const char c : entry.value) {
      if (c == '"' || c == '\\') text += '\\';
      text += c;
    }
    text += '"';
  }
  return text;
}

}  // namespace blocktune
