#include "blocktune/space.hpp"

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

namespace {

// Enumerates a space group by group. Parameters are connected when a
// constraint names both; each connected group is solved on its own, and the
// groups' solutions are then interleaved in the space's parameter order.
class Enumerator {
 public:
  Enumerator(const std::vector<Parameter>& parameters, const std::vector<Expression>& constraints,
             const Lookup& environment)
      : parameters_(parameters), bound_(parameters.size()) {
    for (const Expression& constraint : constraints) bind(constraint, environment);
    form_groups();
  }

  std::vector<Config> run() {
    std::vector<Config> configs;
    if (!environment_satisfied_) return configs;
    for (Group& group : groups_) {
      solve(group, 0);
      if (group.solutions.empty()) return configs;
      group.range = {0, group.solutions.size() / group.parameters.size()};
    }
    choice_.resize(parameters_.size());
    combine(0, configs);
    return configs;
  }

 private:
  // A constraint with each variable pointing at an environment value or, once
  // bound during the search, at a parameter value. Moving it keeps the
  // environment pointers valid: a moved vector keeps its elements in place.
  struct BoundConstraint {
    const Expression* expression;
    std::vector<std::optional<std::size_t>> parameter_of_variable;
    std::vector<Value> environment_values;  // by variable; unused for parameters
    std::vector<const Value*> bindings;
  };

  struct Group {
    std::vector<std::size_t> parameters;  // in space order
    std::vector<std::vector<std::size_t>> constraints_at;  // per position: checked once it is bound
    std::vector<std::uint32_t> solutions;  // value indices, parameters.size() per solution, in order
    std::pair<std::size_t, std::size_t> range;  // solutions consistent with the choices made so far
  };

  void bind(const Expression& constraint, const Lookup& environment) {
    BoundConstraint bound{&constraint, {}, {}, {}};
    const auto& variables = constraint.variables();
    bound.environment_values.resize(variables.size());
    bound.bindings.resize(variables.size());
    for (std::size_t i = 0; i < variables.size(); ++i) {
      const auto parameter = std::find_if(parameters_.begin(), parameters_.end(),
                                          [&](const Parameter& p) { return p.name == variables[i]; });
      if (parameter != parameters_.end()) {
        bound.parameter_of_variable.emplace_back(parameter - parameters_.begin());
        continue;
      }
      std::optional<Value> value = environment ? environment(variables[i]) : std::nullopt;
      if (!value)
        throw ExpressionError(fmt::format("constraint '{}' names '{}', which is neither a parameter nor in the environment",
                                          constraint.text(), variables[i]));
      bound.parameter_of_variable.emplace_back(std::nullopt);
      bound.environment_values[i] = std::move(*value);
      bound.bindings[i] = &bound.environment_values[i];
    }
    const bool environment_only = std::none_of(bound.parameter_of_variable.begin(), bound.parameter_of_variable.end(),
                                               [](const auto& parameter) { return parameter.has_value(); });
    if (environment_only)
      environment_satisfied_ = environment_satisfied_ && constraint.evaluate_bool_bound(bound.bindings);
    else
      constraints_.push_back(std::move(bound));
  }

  void form_groups() {
    // Union-find over parameters: every constraint joins the parameters it names.
    std::vector<std::size_t> root(parameters_.size());
    std::iota(root.begin(), root.end(), std::size_t{0});
    const auto find = [&](std::size_t p) {
      while (root[p] != p) p = root[p] = root[root[p]];
      return p;
    };
    for (const BoundConstraint& constraint : constraints_) {
      std::optional<std::size_t> first;
      for (const auto& parameter : constraint.parameter_of_variable) {
        if (!parameter) continue;
        if (!first) first = find(*parameter);
        else root[find(*parameter)] = *first;
      }
    }

    std::vector<std::size_t> group_of_root(parameters_.size(), kNone);
    position_.resize(parameters_.size());
    group_of_.resize(parameters_.size());
    for (std::size_t p = 0; p < parameters_.size(); ++p) {
      std::size_t& group = group_of_root[find(p)];
      if (group == kNone) {
        group = groups_.size();
        groups_.emplace_back();
      }
      group_of_[p] = group;
      position_[p] = groups_[group].parameters.size();
      groups_[group].parameters.push_back(p);
    }

    for (Group& group : groups_) group.constraints_at.resize(group.parameters.size());
    for (std::size_t c = 0; c < constraints_.size(); ++c) {
      std::size_t last = 0;
      std::size_t group = 0;
      for (const auto& parameter : constraints_[c].parameter_of_variable) {
        if (!parameter) continue;
        last = std::max(last, position_[*parameter]);
        group = group_of_[*parameter];
      }
      groups_[group].constraints_at[last].push_back(c);
    }
  }

  // Backtracking over one group's parameters, recording every full solution.
  void solve(Group& group, std::size_t position) {
    if (position == group.parameters.size()) {
      for (const std::size_t p : group.parameters) group.solutions.push_back(value_index_of(p));
      return;
    }
    const std::size_t p = group.parameters[position];
    for (const Value& value : parameters_[p].values) {
      bound_[p] = &value;
      const auto& constraints = group.constraints_at[position];
      if (std::all_of(constraints.begin(), constraints.end(), [&](std::size_t c) { return satisfied(c); }))
        solve(group, position + 1);
    }
    bound_[p] = nullptr;
  }

  bool satisfied(std::size_t index) {
    BoundConstraint& constraint = constraints_[index];
    for (std::size_t i = 0; i < constraint.bindings.size(); ++i)
      if (const auto& parameter = constraint.parameter_of_variable[i]) constraint.bindings[i] = bound_[*parameter];
    try {
      return constraint.expression->evaluate_bool_bound(constraint.bindings);
    } catch (const ExpressionError& error) {
      throw ExpressionError(fmt::format("{} (with {})", error.what(), describe_bindings(constraint)));
    }
  }

  std::string describe_bindings(const BoundConstraint& constraint) const {
    std::string text;
    for (std::size_t i = 0; i < constraint.bindings.size(); ++i) {
      if (!constraint.parameter_of_variable[i]) continue;
      if (!text.empty()) text += ", ";
      text += fmt::format("{}={}", constraint.expression->variables()[i], to_string(*constraint.bindings[i]));
    }
    return text;
  }

  std::uint32_t value_index_of(std::size_t p) const {
    return static_cast<std::uint32_t>(bound_[p] - parameters_[p].values.data());
  }

  // Walks the parameters in space order. Each group's solutions are sorted,
  // so the solutions agreeing with the values chosen so far form a
  // contiguous range, and the runs of equal values at the next position are
  // the choices for the next parameter. Every path ends in a configuration.
  void combine(std::size_t p, std::vector<Config>& configs) {
    if (p == parameters_.size()) {
      std::vector<std::pair<std::string, Value>> entries;
      entries.reserve(parameters_.size());
      for (std::size_t q = 0; q < parameters_.size(); ++q)
        entries.emplace_back(parameters_[q].name, parameters_[q].values[choice_[q]]);
      configs.emplace_back(std::move(entries));
      return;
    }
    Group& group = groups_[group_of_[p]];
    const std::size_t stride = group.parameters.size();
    const auto value_at = [&](std::size_t solution) { return group.solutions[solution * stride + position_[p]]; };
    const auto outer = group.range;
    for (std::size_t begin = outer.first; begin < outer.second;) {
      std::size_t end = begin + 1;
      while (end < outer.second && value_at(end) == value_at(begin)) ++end;
      choice_[p] = value_at(begin);
      group.range = {begin, end};
      combine(p + 1, configs);
      begin = end;
    }
    group.range = outer;
  }

  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);

  const std::vector<Parameter>& parameters_;
  std::vector<BoundConstraint> constraints_;
  bool environment_satisfied_ = true;
  std::vector<Group> groups_;
  std::vector<std::size_t> group_of_;  // by parameter
  std::vector<std::size_t> position_;  // by parameter: its position within its group
  std::vector<const Value*> bound_;    // by parameter: its value during solve()
  std::vector<std::uint32_t> choice_;  // by parameter: its value index during combine()
};

}  // namespace

std::vector<Config> SearchSpace::enumerate(const Lookup& environment) const {
  return Enumerator(parameters_, constraints_, environment).run();
}

std::optional<ConstraintViolation> SearchSpace::check(const Config& config, const Lookup& environment) const {
  const Lookup lookup = config.lookup(environment);
  for (const Expression& constraint : constraints_)
    if (!constraint.evaluate_bool(lookup)) return ConstraintViolation{constraint.text()};
  return std::nullopt;
}

}  // namespace blocktune
