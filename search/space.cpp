#include "blocktune/detail/space.hpp"

#include "blocktune/candidates.hpp"

#include <blocktune/config_text.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <numeric>
#include <stdexcept>

namespace blocktune {

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
  std::vector<ConfigEntry> text_entries;
  text_entries.reserve(entries_.size());
  for (const auto& [name, value] : entries_) {
    const auto* number = std::get_if<std::int64_t>(&value);
    text_entries.push_back({name, number ? std::to_string(*number) : std::get<std::string>(value), number != nullptr});
  }
  return format_config_text(text_entries);
}

Config Config::parse(std::string_view text) {
  const auto fail = [&](std::string_view what) {
    return std::invalid_argument(fmt::format("invalid configuration '{}': {}", text, what));
  };
  std::vector<std::pair<std::string, Value>> entries;
  for (ConfigEntry& entry : parse_config_text(text)) {
    if (!entry.integer) {
      entries.emplace_back(std::move(entry.name), std::move(entry.value));
      continue;
    }
    std::int64_t number = 0;
    const char* end = entry.value.data() + entry.value.size();
    if (std::from_chars(entry.value.data(), end, number).ec != std::errc{})
      throw fail(fmt::format("the value of '{}' ({}) is out of 64-bit integer range", entry.name, entry.value));
    entries.emplace_back(std::move(entry.name), number);
  }
  try {
    return Config(std::move(entries));
  } catch (const std::invalid_argument& error) {
    throw fail(error.what());
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
  if (!is_parameter_name(parameter.name))
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
