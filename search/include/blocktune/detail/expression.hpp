#pragma once
// A small C-like expression language for constraints, grid sizes and buffer
// sizes in kernel descriptions and spec files.
//
// Values are 64-bit integers or strings; booleans are the integers 0 and 1.
// Grammar, loosest binding first (as in C):
//   c ? a : b      ||      &&      == !=      < <= > >=      + -      * / %
//   unary - + !    literals (decimal, 0x hex, "..." or '...'), names, ( ),
//   min(a, b, ...)  max(a, b, ...)  ceil_div(a, b)  abs(a)  pow(a, b)
//   log2(a) (floor)  is_pow2(a)
// Names match [A-Za-z_][A-Za-z0-9_.]* so that `device.max_threads_per_block`
// is a single name. `==` and `!=` compare any two values (values of different
// types are unequal); `+` adds integers or concatenates strings; everything
// else needs integers. Overflow and division by zero are errors, not UB.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace blocktune {

using Value = std::variant<std::int64_t, std::string>;

// 32 -> "32", "BASE" -> "BASE".
std::string to_string(const Value& value);

// A parse or evaluation error. The message names the expression text and, for
// parse errors, the 1-based column; for an unknown variable, its name.
struct ExpressionError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Resolves a variable; returns std::nullopt for names it does not know.
using Lookup = std::function<std::optional<Value>(std::string_view name)>;

// A parsed expression. Immutable and cheap to copy (copies share the parsed form).
class Expression {
 public:
  static Expression parse(std::string_view text);

  // Variables are resolved only when reached, so `n != 0 && x / n > 1` and
  // `has_x ? x : 0` do not need the unreached ones.
  // An empty lookup knows no variables, which suits constant expressions.
  Value evaluate(const Lookup& lookup = {}) const;
  std::int64_t evaluate_int(const Lookup& lookup = {}) const;
  bool evaluate_bool(const Lookup& lookup = {}) const;  // nonzero integer = true

  // The fast path for evaluating many times: bindings[i] points to the value
  // of variables()[i], or is null where that variable is unknown.
  Value evaluate_bound(std::span<const Value* const> bindings) const;
  bool evaluate_bool_bound(std::span<const Value* const> bindings) const;

  // The distinct names referenced, in order of first use.
  const std::vector<std::string>& variables() const;
  const std::string& text() const;

  struct Program;  // the parsed form, defined with the parser

 private:
  explicit Expression(std::shared_ptr<const Program> program);
  std::shared_ptr<const Program> program_;
};

}  // namespace blocktune
