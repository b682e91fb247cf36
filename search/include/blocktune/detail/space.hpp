#pragma once
// Search spaces: named parameters with listed values, constrained by
// expressions, and the configurations (points) that satisfy them.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "blocktune/detail/expression.hpp"

namespace blocktune {

struct Parameter {
  std::string name;
  std::vector<Value> values;
};

// One point of a search space: parameter values in the space's parameter order.
class Config {
 public:
  Config() = default;
  // Throws std::invalid_argument on a duplicate name.
  Config(std::vector<std::pair<std::string, Value>> entries);

  const Value& at(std::string_view name) const;  // throws std::out_of_range naming the parameter
  const Value* find(std::string_view name) const;
  std::int64_t get_int(std::string_view name) const;  // also throws std::invalid_argument for a string
  const std::vector<std::pair<std::string, Value>>& entries() const { return entries_; }

  // Canonical text, format_config_text (blocktune/config_text.hpp):
  // "block_x=32,block_y=4,strategy=BASE". Strings that would read back as
  // something else (empty, integer-like, or holding , = quotes spaces or
  // backslashes) are written in double quotes with backslash escapes.
  std::string to_string() const;
  // The inverse of to_string(), through parse_config_text: -?[0-9]+ reads as
  // an integer, anything else as a string. Throws std::invalid_argument saying
  // what is wrong and where (also for a repeated name or an integer out of range).
  static Config parse(std::string_view text);

  // Resolves parameters, then asks `fallback` (e.g. device limits). The
  // returned Lookup refers to this Config, which must outlive it.
  Lookup lookup(const Lookup& fallback = {}) const;

  friend bool operator==(const Config&, const Config&) = default;

 private:
  std::vector<std::pair<std::string, Value>> entries_;
};

struct ConstraintViolation {
  std::string constraint;  // the text of the first violated constraint
};

class SearchSpace {
 public:
  // Throws std::invalid_argument for a duplicate or malformed name, no values
  // or a repeated value.
  void add_parameter(Parameter parameter);
  // Parsed now (throws ExpressionError); names are resolved at enumeration.
  void add_constraint(std::string_view expression);

  const std::vector<Parameter>& parameters() const { return parameters_; }
  const std::vector<Expression>& constraints() const { return constraints_; }

  // The product of the value counts; a double because it can exceed 2^64.
  double raw_size() const;

  // Every configuration that satisfies all constraints, ordered
  // lexicographically by parameter order with values in their listed order.
  // `environment` supplies the names that are not parameters (device limits
  // such as max_threads_per_block). A constraint naming something that is
  // neither is an ExpressionError naming the constraint and the variable.
  //
  // Lists what ConstrainedSpace (candidates.hpp) counts, so it never walks the
  // Cartesian product; for a space too large to list, use ConstrainedSpace.
  std::vector<Config> enumerate(const Lookup& environment = {}) const;

  // The first constraint (in the order added) that `config` violates, if any.
  std::optional<ConstraintViolation> check(const Config& config, const Lookup& environment = {}) const;

 private:
  std::vector<Parameter> parameters_;
  std::vector<Expression> constraints_;
};

}  // namespace blocktune
