#include <blocktune/arch.hpp>

#include <charconv>
#include <system_error>

namespace blocktune {

std::optional<std::pair<int, int>> parse_arch(std::string_view text) {
  for (std::string_view prefix : {"sm_", "compute_"}) {
    if (text.starts_with(prefix)) {
      text.remove_prefix(prefix.size());
      break;
    }
  }
  if (text.ends_with('a') || text.ends_with('f')) text.remove_suffix(1);  // sm_90a, sm_100f
  std::string_view major_text, minor_text;
  if (const auto dot = text.find('.'); dot != std::string_view::npos) {
    major_text = text.substr(0, dot);
    minor_text = text.substr(dot + 1);
  } else if (text.size() >= 2) {
    major_text = text.substr(0, text.size() - 1);
    minor_text = text.substr(text.size() - 1);
  } else {
    return std::nullopt;
  }
  const auto number = [](std::string_view digits) -> std::optional<int> {
    int value = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (digits.empty() || error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
    return value;
  };
  const auto major = number(major_text), minor = number(minor_text);
  if (!major || !minor || *major < 1 || minor_text.size() != 1) return std::nullopt;
  return std::pair{*major, *minor};
}

}  // namespace blocktune
