#include <catch2/catch.hpp>

#include <blocktune/detail/expression.hpp>

#include <map>

using blocktune::Expression;
using blocktune::ExpressionError;
using blocktune::Lookup;
using blocktune::Value;

namespace {

Lookup variables(std::map<std::string, Value, std::less<>> values) {
  return [values = std::move(values)](std::string_view name) -> std::optional<Value> {
    if (const auto found = values.find(name); found != values.end()) return found->second;
    return std::nullopt;
  };
}

std::int64_t eval(std::string_view text, const Lookup& lookup = {}) {
  return Expression::parse(text).evaluate_int(lookup);
}

std::string error_of(std::string_view text, const Lookup& lookup = {}) {
  try {
    Expression::parse(text).evaluate(lookup);
  } catch (const ExpressionError& error) {
    return error.what();
  }
  FAIL("no ExpressionError for '" << text << "'");
  return {};
}

}  // namespace

TEST_CASE("Values print as their plain text") {
  CHECK(blocktune::to_string(Value{std::int64_t{32}}) == "32");
  CHECK(blocktune::to_string(Value{std::int64_t{-7}}) == "-7");
  CHECK(blocktune::to_string(Value{std::string("BASE")}) == "BASE");
}

TEST_CASE("Expressions follow C precedence and associativity") {
  CHECK(eval("1 + 2 * 3") == 7);
  CHECK(eval("(1 + 2) * 3") == 9);
  CHECK(eval("10 - 4 - 3") == 3);
  CHECK(eval("64 / 4 / 2") == 8);
  CHECK(eval("7 % 4 * 2") == 6);
  CHECK(eval("-2 * -3") == 6);
  CHECK(eval("- -5") == 5);
  CHECK(eval("+5 - +2") == 3);
  CHECK(eval("!0 + !7") == 1);
  CHECK(eval("1 + 1 == 2") == 1);
  CHECK(eval("1 < 2 == 2 > 1") == 1);
  CHECK(eval("3 <= 3 && 4 >= 5") == 0);
  CHECK(eval("0 || 2 && 3") == 1);
  CHECK(eval("1 || 0 && 0") == 1);
  CHECK(eval("1 != 2") == 1);
  CHECK(eval("0 ? 1 : 2") == 2);
  CHECK(eval("1 ? 0 ? 3 : 4 : 5") == 4);
  CHECK(eval("0 ? 1 : 0 ? 2 : 3") == 3);
  CHECK(eval("1 + 2 > 2 ? 10 : 20") == 10);
  CHECK(eval("0x1F + 0X10") == 47);
  CHECK(eval("  ( 2 )\t*\n3 ") == 6);
}

TEST_CASE("Division truncates toward zero as in C") {
  CHECK(eval("7 / 2") == 3);
  CHECK(eval("-7 / 2") == -3);
  CHECK(eval("-7 % 2") == -1);
  CHECK(eval("7 % -2") == 1);
}

TEST_CASE("Built-in functions") {
  CHECK(eval("min(4, 2, 8)") == 2);
  CHECK(eval("max(4, 2, 8, -1)") == 8);
  CHECK(eval("min(3, 5)") == 3);
  CHECK(eval("ceil_div(1000, 256)") == 4);
  CHECK(eval("ceil_div(1024, 256)") == 4);
  CHECK(eval("ceil_div(0, 256)") == 0);
  CHECK(eval("ceil_div(-7, 2)") == -3);
  CHECK(eval("ceil_div(-7, -2)") == 4);
  CHECK(eval("abs(-12) + abs(3)") == 15);
  CHECK(eval("pow(2, 10)") == 1024);
  CHECK(eval("pow(-3, 3)") == -27);
  CHECK(eval("pow(7, 0)") == 1);
  CHECK(eval("pow(0, 0)") == 1);
  CHECK(eval("pow(-1, 63)") == -1);
  CHECK(eval("pow(2, 62)") == (std::int64_t{1} << 62));
  CHECK(eval("log2(1)") == 0);
  CHECK(eval("log2(1023)") == 9);
  CHECK(eval("log2(1024)") == 10);
  CHECK(eval("is_pow2(64) && !is_pow2(48) && !is_pow2(0) && !is_pow2(-4)") == 1);
  CHECK(eval("max(min(8, 3), ceil_div(9, 2))") == 5);
}

TEST_CASE("Strings compare with == and != and concatenate with +") {
  const Lookup lookup = variables({{"strategy", std::string("BASE")}, {"n", std::int64_t{4}}});
  CHECK(eval("strategy == \"BASE\"", lookup) == 1);
  CHECK(eval("strategy != 'BASE'", lookup) == 0);
  CHECK(eval("strategy == 'TILED' ? 1 : 2", lookup) == 2);
  // Values of different types are simply unequal, so mixed value lists work.
  CHECK(eval("n == '4'", lookup) == 0);
  CHECK(eval("n != '4'", lookup) == 1);
  const Value joined = Expression::parse("strategy + \"_\" + 'v2'").evaluate(lookup);
  CHECK(joined == Value{std::string("BASE_v2")});
  CHECK(Expression::parse(R"("say \"hi\"" == 'say "hi"')").evaluate_bool());
}

TEST_CASE("Variables resolve through the lookup, dots included") {
  const Lookup lookup = variables({{"block_x", std::int64_t{32}},
                                   {"block_y", std::int64_t{8}},
                                   {"device.max_threads_per_block", std::int64_t{1024}}});
  const auto expression = Expression::parse("block_x * block_y <= device.max_threads_per_block && block_x % 32 == 0");
  CHECK(expression.evaluate_bool(lookup));
  CHECK(expression.variables() == std::vector<std::string>{"block_x", "block_y", "device.max_threads_per_block"});
  CHECK(expression.text() == "block_x * block_y <= device.max_threads_per_block && block_x % 32 == 0");
  CHECK(Expression::parse("a + b * a - c").variables() == std::vector<std::string>{"a", "b", "c"});
  CHECK(Expression::parse("min(x, 1)").variables() == std::vector<std::string>{"x"});
}

TEST_CASE("Unreached branches need no variables") {
  const Lookup lookup = variables({{"n", std::int64_t{0}}});
  CHECK(eval("n != 0 && missing / n > 1", lookup) == 0);
  CHECK(eval("n == 0 || missing", lookup) == 1);
  CHECK(eval("n ? missing : 7", lookup) == 7);
  CHECK_THROWS_WITH(eval("n == 0 && missing", lookup), Catch::Contains("unknown variable 'missing'"));
}

TEST_CASE("Evaluation from bindings matches evaluation from a lookup") {
  const auto expression = Expression::parse("x * y + (s == 'a' ? 1 : 0)");
  const Value x = std::int64_t{6}, y = std::int64_t{7}, s = std::string("a");
  const std::vector<const Value*> bindings{&x, &y, &s};
  CHECK(expression.evaluate_bound(bindings) == Value{std::int64_t{43}});
  CHECK(expression.evaluate(variables({{"x", x}, {"y", y}, {"s", s}})) == Value{std::int64_t{43}});
  CHECK(expression.evaluate_bool_bound(bindings));

  const std::vector<const Value*> missing_s{&x, &y, nullptr};
  CHECK_THROWS_WITH(expression.evaluate_bound(missing_s), Catch::Contains("unknown variable 's'"));
  const std::vector<const Value*> too_few{&x};
  CHECK_THROWS_AS(expression.evaluate_bound(too_few), std::invalid_argument);
}

TEST_CASE("Parse errors name the expression and the column") {
  const auto parse_error = [](std::string_view text) {
    try {
      Expression::parse(text);
    } catch (const ExpressionError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(parse_error("1 +"), Catch::Contains("'1 +'") && Catch::Contains("column 4"));
  CHECK_THAT(parse_error("a = 1"), Catch::Contains("column 3") && Catch::Contains("unexpected '='"));
  CHECK_THAT(parse_error("(1 + 2"), Catch::Contains("expected ')'"));
  CHECK_THAT(parse_error("foo(1)"), Catch::Contains("unknown function 'foo'") && Catch::Contains("column 1"));
  CHECK_THAT(parse_error("min(1)"), Catch::Contains("min() takes at least 2 argument(s), got 1"));
  CHECK_THAT(parse_error("abs(1, 2)"), Catch::Contains("abs() takes 1 argument(s), got 2"));
  CHECK_THAT(parse_error("12abc"), Catch::Contains("malformed integer literal"));
  CHECK_THAT(parse_error("0x"), Catch::Contains("malformed integer literal"));
  CHECK_THAT(parse_error("99999999999999999999"), Catch::Contains("out of 64-bit range"));
  CHECK_THAT(parse_error("'abc"), Catch::Contains("unterminated string"));
  CHECK_THAT(parse_error("1 ? 2"), Catch::Contains("expected ':'"));
  CHECK_THAT(parse_error("a & b"), Catch::Contains("column 3") && Catch::Contains("'&&' or 'and'"));
  CHECK_THAT(parse_error("a | b"), Catch::Contains("'||' or 'or'"));
  CHECK_THAT(parse_error("a = 1"), Catch::Contains("comparison is '=='"));
  CHECK_THAT(parse_error("2 ^ 3"), Catch::Contains("'**' or pow(a, b)"));
  CHECK_THAT(parse_error(""), Catch::Contains("unexpected end of expression"));
  CHECK_THAT(parse_error("1 2"), Catch::Contains("column 3"));
}

TEST_CASE("Evaluation errors instead of undefined behaviour") {
  CHECK_THAT(error_of("1 / 0"), Catch::Contains("'1 / 0'") && Catch::Contains("division by zero"));
  CHECK_THAT(error_of("1 % 0"), Catch::Contains("modulo by zero"));
  CHECK_THAT(error_of("ceil_div(1, 0)"), Catch::Contains("division by zero"));
  CHECK_THAT(error_of("9223372036854775807 + 1"), Catch::Contains("integer overflow in '+'"));
  CHECK_THAT(error_of("-9223372036854775807 - 2"), Catch::Contains("integer overflow in '-'"));
  CHECK_THAT(error_of("4294967296 * 4294967296"), Catch::Contains("integer overflow in '*'"));
  CHECK_THAT(error_of("(-9223372036854775807 - 1) / -1"), Catch::Contains("integer overflow in '/'"));
  CHECK(eval("(-9223372036854775807 - 1) % -1") == 0);
  CHECK_THAT(error_of("-(-9223372036854775807 - 1)"), Catch::Contains("integer overflow"));
  CHECK_THAT(error_of("abs(-9223372036854775807 - 1)"), Catch::Contains("integer overflow in 'abs'"));
  CHECK_THAT(error_of("pow(2, 63)"), Catch::Contains("integer overflow in 'pow'"));
  CHECK_THAT(error_of("pow(2, -1)"), Catch::Contains("non-negative exponent"));
  CHECK_THAT(error_of("log2(0)"), Catch::Contains("positive argument"));
  CHECK_THAT(error_of("block * 2"), Catch::Contains("unknown variable 'block'"));
  CHECK_THAT(error_of("'a' * 2"), Catch::Contains("'*' needs an integer, got string \"a\""));
  CHECK_THAT(error_of("'a' + 2"), Catch::Contains("'+' needs two integers or two strings"));
  CHECK_THAT(error_of("'a' < 'b'"), Catch::Contains("'<' needs an integer"));
  CHECK_THAT(error_of("!'a'"), Catch::Contains("'!' needs an integer"));
  CHECK_THROWS_WITH(Expression::parse("'a'").evaluate_int(), Catch::Contains("expected an integer"));
  CHECK_THROWS_WITH(Expression::parse("'a'").evaluate_bool(), Catch::Contains("expected a condition"));
}

TEST_CASE("Python's spellings of the operators, as Kernel Tuner restrictions and T1 files write them") {
  const Lookup v = variables({{"x", Value{std::int64_t{6}}}, {"order", Value{std::int64_t{2}}}, {"nothing", Value{std::int64_t{0}}}});
  CHECK(eval("x > 4 and x < 8", v) == 1);
  CHECK(eval("x > 7 or x == 6", v) == 1);
  CHECK(eval("not x == 6", v) == 0);           // not binds looser than ==, as in Python
  CHECK(eval("not nothing and x", v) == 1);    // and looser than not
  CHECK(eval("order or nothing", v) == 1);     // a name starting with "or" is a name
  CHECK(eval("nothing or order", v) == 1);
  CHECK(eval("x // 4", v) == 1);
  CHECK(eval("-7 // 2") == -4);                // floor, as in Python (C's / gives -3)
  CHECK(eval("-7 / 2") == -3);
  CHECK(eval("7 // -2") == -4);
  CHECK(eval("2 ** 3 ** 2") == 512);           // right-associative
  CHECK(eval("2 * 3 ** 2") == 18);             // tighter than *
  CHECK(eval("True and not False") == 1);
  CHECK(eval("x % 4 == 2 and (x * 2 <= 1024)", v) == 1);
}

TEST_CASE("Nesting has a depth limit instead of overflowing the stack") {
  const auto parse_error = [](const std::string& text) {
    try {
      Expression::parse(text);
    } catch (const ExpressionError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(parse_error(std::string(60000, '(')), Catch::Contains("nested more than 256 deep"));
  CHECK_THAT(parse_error(std::string(60000, '-') + "1"), Catch::Contains("nested more than 256 deep"));
  CHECK(parse_error(std::string(100, '(') + "1" + std::string(100, ')')) == "no error");
}
