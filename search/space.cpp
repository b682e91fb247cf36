#include "blocktune/detail/space.hpp"

#include "blocktune/candidates.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <numeric>
#include <stdexcept>

namespace blocktune {

namespace {

bool is_name(std::string_view name) {
  const auto start = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  const auto rest = [&](char c) { return start(c) || (c >= '0' && c <= '9') || c == '.'; };
  return !name.empty() && start(name.front()) && std::all_of(name.begin() + 1, name.end(), rest);
}

bool looks_like_integer(std::string_view text) {
  if (text.starts_with('-')) text.remove_prefix(1);
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::string_view trim(std::string_view text) {
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

std::string format_value(const Value& value) {
  const auto* text = std::get_if<std::string>(&value);
  if (text == nullptr) return to_string(value);
  const bool plain = !text->empty() && !looks_like_integer(*text) &&
                     std::none_of(text->begin(), text->end(), [](char c) {
                       return is_space(c) || c == ',' || c == '=' || c == '"' || c == '\'' || c == '\\';
                     });
  if (plain) return *text;
  std::string quoted = "\"";
  for (const char c : *text) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return quoted + '"';
}

// Reads the text Config::to_string() writes.
class ConfigParser {
 public:
  explicit ConfigParser(std::string_view text) : text_(text) {}

  std::vector<std::pair<std::string, Value>> parse() {
    std::vector<std::pair<std::string, Value>> entries;
    if (trim(text_).empty()) return entries;
    while (true) {
      const std::size_t equals = text_.find('=', position_);
      if (equals == std::string_view::npos) fail(fmt::format("expected 'name=value' at '{}'", text_.substr(position_)));
      const std::string_view name = trim(text_.substr(position_, equals - position_));
      if (!is_name(name)) fail(fmt::format("'{}' is not a parameter name", name));
      position_ = equals + 1;
      entries.emplace_back(std::string(name), parse_value(name));
      skip_space();
      if (position_ == text_.size()) return entries;
      if (text_[position_] != ',') fail(fmt::format("expected ',' after the value of '{}'", name));
      ++position_;
    }
  }

 private:
  Value parse_value(std::string_view name) {
    skip_space();
    if (position_ < text_.size() && text_[position_] == '"') return parse_quoted(name);
    const std::size_t comma = std::min(text_.find(',', position_), text_.size());
    const std::string_view value = trim(text_.substr(position_, comma - position_));
    position_ = comma;
    if (value.empty()) fail(fmt::format("'{}' has no value", name));
    if (const std::size_t special = value.find_first_of("=\"'\\"); special != std::string_view::npos)
      fail(fmt::format("the value of '{}' must be quoted: it holds '{}'", name, value[special]));
    if (!looks_like_integer(value)) return std::string(value);
    std::int64_t number = 0;
    if (std::from_chars(value.data(), value.data() + value.size(), number).ec != std::errc{})
      fail(fmt::format("the value of '{}' ({}) is out of 64-bit integer range", name, value));
    return number;
  }

  Value parse_quoted(std::string_view name) {
    std::string value;
    for (++position_; position_ < text_.size() && text_[position_] != '"'; ++position_) {
      if (text_[position_] == '\\' && position_ + 1 < text_.size()) ++position_;
      value += text_[position_];
    }
    if (position_ == text_.size()) fail(fmt::format("the value of '{}' has no closing quote", name));
    ++position_;
    return value;
  }

  void skip_space() {
    while (position_ < text_.size() && is_space(text_[position_])) ++position_;
  }

  [[noreturn]] void fail(std::string_view what) const {
    throw std::invalid_argument(fmt::format("invalid configuration '{}': {}", text_, what));
  }

  std::string_view text_;
  std::size_t position_ = 0;
};

}  // namespace

Config::Config(std::vector<std::pair<std::string, Value>> entries) : entries_(std::move(entries)) {
  for (auto entry = entries_.begin(); entry != entries_.end(); ++entry)
    if (std::any_of(entries_.begin(), entry, [&](const auto& earlier) { return earlier.first == entry->first; }))
      throw std::invalid_argument(fmt::format("configuration names '{}' twice", entry->first));
}

const Value* Config::find(std::string_view name) const {
  for (const auto& [key, value] : entries_)
    if (key == name) return &value;
  return nullptr;
}

const Value& Config::at(std::string_view name) const {
  if (const Value* value = find(name)) return *value;
  throw std::out_of_range(fmt::format("configuration '{}' has no parameter '{}'", to_string(), name));
}

std::int64_t Config::get_int(std::string_view name) const {
  const Value& value = at(name);
  if (const auto* number = std::get_if<std::int64_t>(&value)) return *number;
  throw std::invalid_argument(
      fmt::format("parameter '{}' is \"{}\", not an integer", name, std::get<std::string>(value)));
}

std::string Config::to_string() const {
  std::string text;
  for (const auto& [name, value] : entries_) {
    if (!text.empty()) text += ',';
    text += name;
    text += '=';
    text += format_value(value);
  }
  return text;
}

Config Config::parse(std::string_view text) {
  auto entries = ConfigParser(text).parse();
  try {
    return Config(std::move(entries));
  } catch (const std::invalid_argument& error) {
    throw std::invalid_argument(fmt::format("invalid configuration '{}': {}", text, error.what()));
  }
}

Lookup Config::lookup(const Lookup& fallback) const {
  return [this, fallback](std::string_view name) -> std::optional<Value> {
    if (const Value* value = find(name)) return *value;
    if (fallback) return fallback(name);
    return std::nullopt;
  };
}

void SearchSpace::add_parameter(Parameter parameter) {
  if (!is_name(parameter.name))
    throw std::invalid_argument(fmt::format("'{}' is not a valid parameter name", parameter.name));
  if (std::any_of(parameters_.begin(), parameters_.end(), [&](const Parameter& p) { return p.name == parameter.name; }))
    throw std::invalid_argument(fmt::format("parameter '{}' is defined twice", parameter.name));
  if (parameter.values.empty())
    throw std::invalid_argument(fmt::format("parameter '{}' has no values", parameter.name));
  const auto& values = parameter.values;
  for (auto value = values.begin(); value != values.end(); ++value)
    if (std::find(values.begin(), value, *value) != value)
      throw std::invalid_argument(
          fmt::format("parameter '{}' lists the value {} twice", parameter.name, blocktune::to_string(*value)));
  parameters_.push_back(std::move(parameter));
}

void SearchSpace::add_constraint(std::string_view expression) {
  constraints_.push_back(Expression::parse(expression));
}

double SearchSpace::raw_size() const {
  return std::accumulate(parameters_.begin(), parameters_.end(), 1.0,
                         [](double size, const Parameter& p) { return size * static_cast<double>(p.values.size()); });
}

std::vector<Config> SearchSpace::enumerate(const Lookup& environment) const {
  const ConstrainedSpace space(*this, environment);
  std::vector<Config> configs;
  configs.reserve(space.size());
  space.for_each([&](std::uint64_t, const Config& config) {
    configs.push_back(config);
    return true;
  });
  return configs;
}

std::optional<ConstraintViolation> SearchSpace::check(const Config& config, const Lookup& environment) const {
  const Lookup lookup = config.lookup(environment);
  for (const Expression& constraint : constraints_)
    if (!constraint.evaluate_bool(lookup)) return ConstraintViolation{constraint.text()};
  return std::nullopt;
}

}  // namespace blocktune
