#include <blocktune/db_types.hpp>

#include <charconv>
#include <limits>
#include <string>

namespace blocktune {
namespace {

std::int64_t parse_dimension(std::string_view text, std::string_view part, std::size_t number) {
  const auto fail = [&](std::string_view problem) -> std::invalid_argument {
    return std::invalid_argument("problem size '" + std::string(text) + "': dimension " + std::to_string(number) +
                                 " " + std::string(problem) +
                                 "; expected positive integers separated by 'x', like 512x512x512");
  };
  if (part.empty()) throw fail("is empty");
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(part.data(), part.data() + part.size(), value);
  if (error == std::errc::result_out_of_range)
    throw fail("('" + std::string(part) + "') is too large, the largest is " +
               std::to_string(std::numeric_limits<std::int64_t>::max()));
  if (error != std::errc() || end != part.data() + part.size())
    throw fail("('" + std::string(part) + "') is not an integer");
  if (value <= 0) throw fail("is " + std::string(part) + ", not positive");
  return value;
}

}  // namespace

std::string ProblemSize::to_string() const {
  std::string text;
  for (const auto dim : dims) {
    if (!text.empty()) text += 'x';
    text += std::to_string(dim);
  }
  return text;
}

std::string ProblemSize::describe() const {
  return time_steps == 1 ? to_string() : to_string() + ", " + std::to_string(time_steps) + " time steps";
}

ProblemSize ProblemSize::parse(std::string_view text) {
  if (text.empty()) throw std::invalid_argument("empty problem size; expected dimensions like 512x512x512");
  ProblemSize size;
  for (std::size_t start = 0;;) {
    const auto end = text.find('x', start);
    size.dims.push_back(parse_dimension(text, text.substr(start, end - start), size.dims.size() + 1));
    if (end == std::string_view::npos) return size;
    start = end + 1;
  }
}

}  // namespace blocktune
