#include "blocktune/detail/expression.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <limits>

namespace blocktune {

std::string to_string(const Value& value) {
  if (const auto* number = std::get_if<std::int64_t>(&value)) return std::to_string(*number);
  return std::get<std::string>(value);
}

namespace {

enum class Op : std::uint8_t {
  Integer, String, Variable,
  Negate, Positive, Not,
  Multiply, Divide, Modulo, Add, Subtract,
  Less, LessEqual, Greater, GreaterEqual, Equal, NotEqual,
  And, Or, Conditional,
  Min, Max, CeilDiv, Abs, Pow, Log2, IsPow2, FloorDivide,
};

std::string_view op_name(Op op) {
  switch (op) {
    case Op::Negate: case Op::Subtract: return "-";
    case Op::Positive: case Op::Add: return "+";
    case Op::Not: return "!";
    case Op::Multiply: return "*";
    case Op::Divide: return "/";
    case Op::FloorDivide: return "//";
    case Op::Modulo: return "%";
    case Op::Less: return "<";
    case Op::LessEqual: return "<=";
    case Op::Greater: return ">";
    case Op::GreaterEqual: return ">=";
    case Op::Equal: return "==";
    case Op::NotEqual: return "!=";
    case Op::And: return "&&";
    case Op::Or: return "||";
    case Op::Conditional: return "?:";
    case Op::Min: return "min";
    case Op::Max: return "max";
    case Op::CeilDiv: return "ceil_div";
    case Op::Abs: return "abs";
    case Op::Pow: return "pow";
    case Op::Log2: return "log2";
    case Op::IsPow2: return "is_pow2";
    case Op::Integer: case Op::String: case Op::Variable: break;
  }
  return "operand";
}

// Binary operators from loosest to tightest binding; longer tokens come first
// so that "<=" is not read as "<". Python's spellings (and, or, //, **) are
// accepted too, as Kernel Tuner's restrictions and T1 files write them.
struct BinaryOperator {
  std::string_view token;
  Op op;
  int precedence;
  bool right_associative = false;
};
constexpr int kComparisonPrecedence = 3;
constexpr BinaryOperator kBinaryOperators[] = {
    {"||", Op::Or, 1},          {"or", Op::Or, 1},           {"&&", Op::And, 2},       {"and", Op::And, 2},
    {"==", Op::Equal, 3},       {"!=", Op::NotEqual, 3},     {"<=", Op::LessEqual, 4}, {">=", Op::GreaterEqual, 4},
    {"<", Op::Less, 4},         {">", Op::Greater, 4},       {"+", Op::Add, 5},        {"-", Op::Subtract, 5},
    {"**", Op::Pow, 7, true},   {"*", Op::Multiply, 6},      {"//", Op::FloorDivide, 6}, {"/", Op::Divide, 6},
    {"%", Op::Modulo, 6},
};

// What a character that starts no operator was probably meant as.
std::string_view operator_hint(char c) {
  switch (c) {
    case '&': return " (logical and is '&&' or 'and')";
    case '|': return " (logical or is '||' or 'or')";
    case '=': return " (comparison is '==')";
    case '^': return " (a power is '**' or pow(a, b))";
    case '~': return " (logical not is '!' or 'not')";
    default: return "";
  }
}

// Nesting deeper than this is an error, not a stack overflow.
constexpr int kMaxDepth = 256;

struct Function {
  std::string_view name;
  Op op;
  std::size_t min_arguments;
  std::size_t max_arguments;
};
constexpr std::size_t kVariadic = std::numeric_limits<std::size_t>::max();
constexpr Function kFunctions[] = {
    {"min", Op::Min, 2, kVariadic}, {"max", Op::Max, 2, kVariadic}, {"ceil_div", Op::CeilDiv, 2, 2},
    {"abs", Op::Abs, 1, 1},         {"pow", Op::Pow, 2, 2},         {"log2", Op::Log2, 1, 1},
    {"is_pow2", Op::IsPow2, 1, 1},
};

bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_name_char(char c) { return is_name_start(c) || is_digit(c) || c == '.'; }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

}  // namespace

// An abstract syntax tree in one array; a node's operands are earlier nodes.
struct Expression::Program {
  struct Node {
    Op op;
    std::uint32_t operands[3] = {};
    std::int64_t payload = 0;  // the integer literal, or an index into strings or variables
    bool integral = true;      // certainly an integer, whatever the variables hold
  };
  std::string text;
  std::vector<std::string> variables;
  std::vector<std::string> strings;
  std::vector<Node> nodes;
  std::uint32_t root = 0;
};

namespace {

using Program = Expression::Program;
using Node = Program::Node;

// Recursive descent with precedence climbing for the binary operators.
class Parser {
 public:
  explicit Parser(Program& program) : program_(program), text_(program.text) {}

  void parse() {
    program_.root = parse_conditional();
    skip_space();
    if (position_ < text_.size()) fail(fmt::format("unexpected '{}'{}", text_[position_], operator_hint(text_[position_])));
  }

 private:
  // Counts the nesting of the recursive descent.
  class Nested {
   public:
    explicit Nested(Parser& parser) : parser_(parser) {
      if (++parser_.depth_ > kMaxDepth) parser_.fail(fmt::format("nested more than {} deep", kMaxDepth));
    }
    ~Nested() { --parser_.depth_; }
    Nested(const Nested&) = delete;
    Nested& operator=(const Nested&) = delete;

   private:
    Parser& parser_;
  };

  std::uint32_t parse_conditional() {
    const Nested nested(*this);
    const std::uint32_t condition = parse_binary(1);
    if (!accept("?")) return condition;
    const std::uint32_t if_true = parse_conditional();
    expect(":");
    const std::uint32_t if_false = parse_conditional();
    return add({Op::Conditional, {condition, if_true, if_false}});
  }

  std::uint32_t parse_binary(int min_precedence) {
    std::uint32_t left = parse_unary();
    while (const BinaryOperator* binary = peek_binary()) {
      if (binary->precedence < min_precedence) break;
      position_ += binary->token.size();
      const std::uint32_t right = parse_binary(binary->right_associative ? binary->precedence : binary->precedence + 1);
      left = add({binary->op, {left, right}});
    }
    return left;
  }

  const BinaryOperator* peek_binary() {
    skip_space();
    for (const BinaryOperator& binary : kBinaryOperators)
      if (text_.substr(position_).starts_with(binary.token) && (!is_name_start(binary.token[0]) || word_ends(position_ + binary.token.size())))
        return &binary;
    return nullptr;
  }

  bool word_ends(std::size_t at) const { return at >= text_.size() || !is_name_char(text_[at]); }

  std::uint32_t parse_unary() {
    const Nested nested(*this);
    skip_space();
    if (accept("-")) return add({Op::Negate, {parse_unary()}});
    if (accept("+")) return add({Op::Positive, {parse_unary()}});
    if (!text_.substr(position_).starts_with("!=") && accept("!")) return add({Op::Not, {parse_unary()}});
    // Python's not binds looser than comparisons: not a == b is not (a == b).
    if (text_.substr(position_).starts_with("not") && word_ends(position_ + 3)) {
      position_ += 3;
      return add({Op::Not, {parse_binary(kComparisonPrecedence)}});
    }
    return parse_primary();
  }

  std::uint32_t parse_primary() {
    skip_space();
    if (position_ == text_.size()) fail("unexpected end of expression");
    const char c = text_[position_];
    if (accept("(")) {
      const std::uint32_t inner = parse_conditional();
      expect(")");
      return inner;
    }
    if (is_digit(c)) return parse_number();
    if (c == '"' || c == '\'') return parse_string();
    if (is_name_start(c)) return parse_name();
    fail(fmt::format("unexpected '{}'{}", c, operator_hint(c)));
  }

  std::uint32_t parse_number() {
    const std::size_t start = position_;
    int base = 10;
    if (text_.substr(position_).starts_with("0x") || text_.substr(position_).starts_with("0X")) {
      base = 16;
      position_ += 2;
    }
    const char* first = text_.data() + position_;
    std::int64_t number = 0;
    const auto [end, error] = std::from_chars(first, text_.data() + text_.size(), number, base);
    position_ += static_cast<std::size_t>(end - first);
    if (error == std::errc::result_out_of_range) fail_at(start, "integer literal out of 64-bit range");
    if (error != std::errc{} || (position_ < text_.size() && is_name_char(text_[position_])))
      fail_at(start, "malformed integer literal");
    return add({Op::Integer, {}, number});
  }

  std::uint32_t parse_string() {
    const std::size_t start = position_;
    const char quote = text_[position_++];
    std::string value;
    while (position_ < text_.size() && text_[position_] != quote) {
      if (text_[position_] == '\\' && position_ + 1 < text_.size()) ++position_;  // \" \' and \\ escape
      value += text_[position_++];
    }
    if (position_ == text_.size()) fail_at(start, "unterminated string literal");
    ++position_;
    program_.strings.push_back(std::move(value));
    return add({Op::String, {}, static_cast<std::int64_t>(program_.strings.size() - 1)});
  }

  std::uint32_t parse_name() {
    const std::size_t start = position_;
    while (position_ < text_.size() && is_name_char(text_[position_])) ++position_;
    const std::string_view name = text_.substr(start, position_ - start);
    skip_space();
    if (position_ < text_.size() && text_[position_] == '(') return parse_call(name, start);
    if (name == "True" || name == "true") return add({Op::Integer, {}, 1});
    if (name == "False" || name == "false") return add({Op::Integer, {}, 0});

    auto& variables = program_.variables;
    auto found = std::find(variables.begin(), variables.end(), name);
    if (found == variables.end()) found = variables.insert(variables.end(), std::string(name));
    return add({Op::Variable, {}, found - variables.begin()});
  }

  std::uint32_t parse_call(std::string_view name, std::size_t start) {
    const auto function = std::find_if(std::begin(kFunctions), std::end(kFunctions),
                                       [&](const Function& f) { return f.name == name; });
    if (function == std::end(kFunctions)) fail_at(start, fmt::format("unknown function '{}'", name));
    expect("(");
    std::vector<std::uint32_t> arguments{parse_conditional()};
    while (accept(",")) arguments.push_back(parse_conditional());
    expect(")");
    if (arguments.size() < function->min_arguments || arguments.size() > function->max_arguments) {
      const auto expected = function->max_arguments == kVariadic
                                ? fmt::format("at least {}", function->min_arguments)
                                : fmt::to_string(function->min_arguments);
      fail_at(start, fmt::format("{}() takes {} argument(s), got {}", name, expected, arguments.size()));
    }
    if (function->op == Op::Min || function->op == Op::Max) {
      // min(a, b, c) is min(min(a, b), c): every node has at most three operands.
      std::uint32_t folded = arguments[0];
      for (std::size_t i = 1; i < arguments.size(); ++i) folded = add({function->op, {folded, arguments[i]}});
      return folded;
    }
    Node call{function->op};
    std::copy(arguments.begin(), arguments.end(), call.operands);
    return add(call);
  }

  std::uint32_t add(Node node) {
    const auto integral = [&](int operand) { return program_.nodes[node.operands[operand]].integral; };
    switch (node.op) {
      case Op::String:
      case Op::Variable: node.integral = false; break;
      case Op::Add: node.integral = integral(0) && integral(1); break;
      case Op::Conditional: node.integral = integral(1) && integral(2); break;
      default: break;
    }
    program_.nodes.push_back(node);
    return static_cast<std::uint32_t>(program_.nodes.size() - 1);
  }

  void skip_space() {
    while (position_ < text_.size() && is_space(text_[position_])) ++position_;
  }

  bool accept(std::string_view token) {
    skip_space();
    if (!text_.substr(position_).starts_with(token)) return false;
    position_ += token.size();
    return true;
  }

  void expect(std::string_view token) {
    if (accept(token)) return;
    if (position_ == text_.size()) fail(fmt::format("expected '{}' but the expression ended", token));
    fail(fmt::format("expected '{}' but found '{}'", token, text_[position_]));
  }

  [[noreturn]] void fail(std::string_view what) const { fail_at(position_, what); }

  [[noreturn]] void fail_at(std::size_t position, std::string_view what) const {
    throw ExpressionError(fmt::format("invalid expression '{}': column {}: {}", text_, position + 1, what));
  }

  Program& program_;
  std::string_view text_;
  std::size_t position_ = 0;
  int depth_ = 0;
};

std::string describe(const Value& value) {
  if (std::holds_alternative<std::int64_t>(value)) return to_string(value);
  return fmt::format("string \"{}\"", std::get<std::string>(value));
}

// Walks the tree; resolve(i) returns a reference to the value of variable i
// or throws. Integer-valued subtrees are computed as plain integers, without
// constructing a Value, which is what makes evaluation fast.
template <typename Resolve>
class TreeWalker {
 public:
  TreeWalker(const Program& program, Resolve resolve) : program_(program), resolve_(std::move(resolve)) {}

  Value evaluate(std::uint32_t index) const {
    const Node& node = program_.nodes[index];
    switch (node.op) {
      case Op::String: return program_.strings[static_cast<std::size_t>(node.payload)];
      case Op::Variable: return resolve_(static_cast<std::size_t>(node.payload));
      case Op::Conditional: return evaluate(node.operands[integer(node.operands[0], node.op) != 0 ? 1 : 2]);
      case Op::Add: {
        Value a = evaluate(node.operands[0]);
        Value b = evaluate(node.operands[1]);
        if (auto* x = std::get_if<std::int64_t>(&a), *y = std::get_if<std::int64_t>(&b); x && y) return add(*x, *y);
        if (auto* x = std::get_if<std::string>(&a), *y = std::get_if<std::string>(&b); x && y)
          return std::move(*x) + *y;
        fail(fmt::format("'+' needs two integers or two strings, got {} and {}", describe(a), describe(b)));
      }
      default: return integer(index, node.op);
    }
  }

  // The value of node `index`, which `user` needs to be an integer.
  std::int64_t integer(std::uint32_t index, Op user) const {
    const Node& node = program_.nodes[index];
    const auto operand = [&](int i) { return integer(node.operands[i], node.op); };
    switch (node.op) {
      case Op::Integer: return node.payload;
      case Op::String: not_integer(user, program_.strings[static_cast<std::size_t>(node.payload)]);
      case Op::Variable: {
        const Value& value = resolve_(static_cast<std::size_t>(node.payload));
        if (const auto* number = std::get_if<std::int64_t>(&value)) return *number;
        not_integer(user, value);
      }
      case Op::Add: {
        if (!node.integral) {
          const Value sum = evaluate(index);
          if (const auto* number = std::get_if<std::int64_t>(&sum)) return *number;
          not_integer(user, sum);
        }
        return add(operand(0), operand(1));
      }
      case Op::Conditional: return integer(node.operands[operand(0) != 0 ? 1 : 2], user);
      case Op::Negate: {
        const std::int64_t a = operand(0);
        if (a == std::numeric_limits<std::int64_t>::min()) overflow(node.op);
        return -a;
      }
      case Op::Positive: return operand(0);
      case Op::Not: return operand(0) == 0;
      case Op::Multiply: return multiply(node.op, operand(0), operand(1));
      case Op::Subtract: {
        std::int64_t difference = 0;
        if (__builtin_sub_overflow(operand(0), operand(1), &difference)) overflow(node.op);
        return difference;
      }
      case Op::Divide:
      case Op::FloorDivide:
      case Op::Modulo:
      case Op::CeilDiv: return divide(node.op, operand(0), operand(1));
      case Op::Less: return operand(0) < operand(1);
      case Op::LessEqual: return operand(0) <= operand(1);
      case Op::Greater: return operand(0) > operand(1);
      case Op::GreaterEqual: return operand(0) >= operand(1);
      case Op::Equal: return equal(node);
      case Op::NotEqual: return !equal(node);
      case Op::And: return operand(0) != 0 && operand(1) != 0;
      case Op::Or: return operand(0) != 0 || operand(1) != 0;
      case Op::Min: return std::min(operand(0), operand(1));
      case Op::Max: return std::max(operand(0), operand(1));
      case Op::Abs: {
        const std::int64_t a = operand(0);
        if (a == std::numeric_limits<std::int64_t>::min()) overflow(node.op);
        return a < 0 ? -a : a;
      }
      case Op::Pow: return power(operand(0), operand(1));
      case Op::Log2: {
        const std::int64_t a = operand(0);
        if (a <= 0) fail(fmt::format("log2() needs a positive argument, got {}", a));
        return static_cast<std::int64_t>(std::bit_width(static_cast<std::uint64_t>(a))) - 1;
      }
      case Op::IsPow2: {
        const std::int64_t a = operand(0);
        return a > 0 && std::has_single_bit(static_cast<std::uint64_t>(a));
      }
    }
    fail("corrupt expression");
  }

 private:
  [[noreturn]] void fail(std::string_view what) const {
    throw ExpressionError(fmt::format("cannot evaluate '{}': {}", program_.text, what));
  }

  // Values of different types are unequal rather than an error, so that a
  // parameter listing both numbers and names can be compared with either.
  bool equal(const Node& node) const {
    const std::uint32_t a = node.operands[0], b = node.operands[1];
    if (program_.nodes[a].integral && program_.nodes[b].integral) return integer(a, node.op) == integer(b, node.op);
    Value storage_a, storage_b;
    return view(a, storage_a) == view(b, storage_b);
  }

  // The value of node `index`, by reference where it already exists.
  const Value& view(std::uint32_t index, Value& storage) const {
    const Node& node = program_.nodes[index];
    if (node.op == Op::Variable) return resolve_(static_cast<std::size_t>(node.payload));
    storage = evaluate(index);
    return storage;
  }

  std::int64_t add(std::int64_t a, std::int64_t b) const {
    std::int64_t sum = 0;
    if (__builtin_add_overflow(a, b, &sum)) overflow(Op::Add);
    return sum;
  }

  std::int64_t multiply(Op op, std::int64_t a, std::int64_t b) const {
    std::int64_t product = 0;
    if (__builtin_mul_overflow(a, b, &product)) overflow(op);
    return product;
  }

  std::int64_t divide(Op op, std::int64_t a, std::int64_t b) const {
    if (b == 0) fail(op == Op::Modulo ? "modulo by zero" : "division by zero");
    if (op == Op::Modulo) return b == -1 ? 0 : a % b;  // INT64_MIN % -1 is UB in C++
    if (a == std::numeric_limits<std::int64_t>::min() && b == -1) overflow(op);
    const std::int64_t quotient = a / b;
    const bool inexact = a % b != 0;
    if (op == Op::CeilDiv && inexact && (a < 0) == (b < 0)) return quotient + 1;
    if (op == Op::FloorDivide && inexact && (a < 0) != (b < 0)) return quotient - 1;
    return quotient;
  }

  std::int64_t power(std::int64_t base, std::int64_t exponent) const {
    if (exponent < 0) fail(fmt::format("pow() needs a non-negative exponent, got {}", exponent));
    if (base == 0 || base == 1) return exponent == 0 ? 1 : base;
    if (base == -1) return exponent % 2 == 0 ? 1 : -1;
    std::int64_t result = 1;  // |base| >= 2, so at most 63 steps before overflow
    for (std::int64_t i = 0; i < exponent; ++i) result = multiply(Op::Pow, result, base);
    return result;
  }

  [[noreturn]] void not_integer(Op user, const Value& value) const {
    fail(fmt::format("'{}' needs an integer, got {}", op_name(user), describe(value)));
  }

  [[noreturn]] void overflow(Op op) const { fail(fmt::format("integer overflow in '{}'", op_name(op))); }

  const Program& program_;
  Resolve resolve_;
};

[[noreturn]] void unknown_variable(const Program& program, std::size_t variable) {
  throw ExpressionError(
      fmt::format("cannot evaluate '{}': unknown variable '{}'", program.text, program.variables[variable]));
}

bool truthy(const Program& program, const Value& value) {
  if (const auto* number = std::get_if<std::int64_t>(&value)) return *number != 0;
  throw ExpressionError(
      fmt::format("cannot evaluate '{}': expected a condition, got {}", program.text, describe(value)));
}

}  // namespace

Expression::Expression(std::shared_ptr<const Program> program) : program_(std::move(program)) {}

Expression Expression::parse(std::string_view text) {
  auto program = std::make_shared<Program>();
  program->text = text;
  Parser(*program).parse();
  return Expression(std::move(program));
}

Value Expression::evaluate(const Lookup& lookup) const {
  const Program& program = *program_;
  // Each variable is looked up at most once per evaluation.
  std::vector<std::optional<Value>> looked_up(program.variables.size());
  return TreeWalker(program, [&](std::size_t variable) -> const Value& {
           auto& value = looked_up[variable];
           if (!value && lookup) value = lookup(program.variables[variable]);
           if (!value) unknown_variable(program, variable);
           return *value;
         }).evaluate(program.root);
}

Value Expression::evaluate_bound(std::span<const Value* const> bindings) const {
  const Program& program = *program_;
  if (bindings.size() != program.variables.size())
    throw std::invalid_argument(fmt::format("expression '{}' has {} variable(s) but {} binding(s) were given",
                                            program.text, program.variables.size(), bindings.size()));
  return TreeWalker(program, [&](std::size_t variable) -> const Value& {
           if (bindings[variable] == nullptr) unknown_variable(program, variable);
           return *bindings[variable];
         }).evaluate(program.root);
}

std::int64_t Expression::evaluate_int(const Lookup& lookup) const {
  const Value value = evaluate(lookup);
  if (const auto* number = std::get_if<std::int64_t>(&value)) return *number;
  throw ExpressionError(
      fmt::format("cannot evaluate '{}': expected an integer, got {}", program_->text, describe(value)));
}

bool Expression::evaluate_bool(const Lookup& lookup) const { return truthy(*program_, evaluate(lookup)); }

bool Expression::evaluate_bool_bound(std::span<const Value* const> bindings) const {
  return truthy(*program_, evaluate_bound(bindings));
}

const std::vector<std::string>& Expression::variables() const { return program_->variables; }

const std::string& Expression::text() const { return program_->text; }

}  // namespace blocktune
