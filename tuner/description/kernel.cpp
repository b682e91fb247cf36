#include <blocktune/detail/kernel.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <numbers>
#include <type_traits>

namespace blocktune {

std::size_t size_of(ElementType type) {
  switch (type) {
    case ElementType::f32: case ElementType::i32: case ElementType::u32: return 4;
    case ElementType::f64: case ElementType::i64: case ElementType::u64: return 8;
  }
  return 4;
}

std::string_view to_string(ElementType type) {
  switch (type) {
    case ElementType::f32: return "f32";
    case ElementType::f64: return "f64";
    case ElementType::i32: return "i32";
    case ElementType::i64: return "i64";
    case ElementType::u32: return "u32";
    case ElementType::u64: return "u64";
  }
  return "f32";
}

bool is_integral(ElementType type) { return type != ElementType::f32 && type != ElementType::f64; }

std::optional<double> scalar_literal(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  // Only numbers with a fraction or an exponent: "3" stays an integer expression.
  if (text.find_first_of(".eE") == std::string_view::npos || text.starts_with("0x") || text.starts_with("0X")) return std::nullopt;
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, std::chars_format::general);
  if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

void set_time_steps(KernelDescription& kernel, std::string per_launch, std::string input, std::string output) {
  if (per_launch != "1") kernel.space.add_constraint(fmt::format("({}) <= time_steps", per_launch));
  kernel.steps_per_launch = std::move(per_launch);
  kernel.step_input = std::move(input);
  kernel.step_output = std::move(output);
}

std::size_t kernel_parameter_count(const KernelDescription& kernel) {
  return static_cast<std::size_t>(std::ranges::count_if(kernel.arguments, [](const Argument& argument) {
    const auto* buffer = std::get_if<BufferArgument>(&argument);
    return !buffer || !buffer->constant;
  }));
}

bool sized_by_parameters(const KernelDescription& kernel, const BufferArgument& buffer) {
  const Expression count = Expression::parse(buffer.count);
  return std::ranges::any_of(count.variables(), [&](const std::string& name) {
    return std::ranges::find(kernel.space.parameters(), name, &Parameter::name) != kernel.space.parameters().end();
  });
}

std::optional<std::string> macro_name(const KernelDescription& kernel, std::string_view parameter) {
  if (!kernel.defines.empty() && std::ranges::find(kernel.defines, parameter) == kernel.defines.end()) return std::nullopt;
  std::string macro(parameter);
  if (kernel.define_names == DefineNames::upper)
    std::ranges::transform(macro, macro.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return macro;
}

namespace {

// splitmix64: fast, and the same sequence on every platform.
std::uint64_t next_random(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Uniform in [0, 1), from the top 53 bits.
double unit_random(std::uint64_t& state) { return static_cast<double>(next_random(state) >> 11) * 0x1.0p-53; }

template <typename T>
void fill(std::span<T> data, const BufferArgument& spec) {
  std::uint64_t state = spec.seed;
  for (std::size_t i = 0; i < data.size(); ++i) {
    double value = spec.value;
    switch (spec.init) {
      case BufferArgument::Init::random:
        // Uniform in [-1, 1), never exactly zero, so unwritten outputs show.
        value = 2 * unit_random(state) - 1.0;
        if (value == 0) value = 0.5;
        if constexpr (std::is_integral_v<T>) value *= 1000;
        if constexpr (std::is_unsigned_v<T>) value = std::abs(value);
        break;
      case BufferArgument::Init::uniform: value = spec.low + (spec.high - spec.low) * unit_random(state); break;
      case BufferArgument::Init::normal: {
        // Box-Muller; 1 - u keeps the logarithm finite.
        const double u = 1.0 - unit_random(state), v = unit_random(state);
        value = spec.mean + spec.stddev * std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * std::numbers::pi * v);
        break;
      }
      case BufferArgument::Init::values: value = i < spec.values.size() ? spec.values[i] : 0.0; break;
      case BufferArgument::Init::iota: value = static_cast<double>(i); break;
      case BufferArgument::Init::constant: case BufferArgument::Init::file: break;
    }
    if constexpr (std::is_unsigned_v<T>) value = std::max(value, 0.0);
    data[i] = static_cast<T>(value);
  }
}

}  // namespace

HostBuffer initial_buffer(const BufferArgument& spec, std::int64_t count) {
  HostBuffer buffer{spec.name, spec.type, std::vector<std::byte>(static_cast<std::size_t>(count) * size_of(spec.type))};
  switch (spec.type) {
    case ElementType::f32: fill(buffer.as<float>(), spec); break;
    case ElementType::f64: fill(buffer.as<double>(), spec); break;
    case ElementType::i32: fill(buffer.as<std::int32_t>(), spec); break;
    case ElementType::i64: fill(buffer.as<std::int64_t>(), spec); break;
    case ElementType::u32: fill(buffer.as<std::uint32_t>(), spec); break;
    case ElementType::u64: fill(buffer.as<std::uint64_t>(), spec); break;
  }
  return buffer;
}

namespace {

template <typename T, typename From>
void store(std::array<std::byte, 8>& bytes, From value) {
  const auto converted = static_cast<T>(value);
  std::memcpy(bytes.data(), &converted, sizeof converted);
}

template <typename From>
std::array<std::byte, 8> convert(ElementType type, From value) {
  std::array<std::byte, 8> bytes{};
  switch (type) {
    case ElementType::f32: store<float>(bytes, value); break;
    case ElementType::f64: store<double>(bytes, value); break;
    case ElementType::i32: store<std::int32_t>(bytes, value); break;
    case ElementType::i64: store<std::int64_t>(bytes, value); break;
    case ElementType::u32: store<std::uint32_t>(bytes, value); break;
    case ElementType::u64: store<std::uint64_t>(bytes, value); break;
  }
  return bytes;
}

}  // namespace

std::array<std::byte, 8> scalar_bytes(const ScalarArgument& scalar, const Lookup& lookup) {
  if (const auto literal = scalar_literal(scalar.value)) return convert(scalar.type, *literal);
  return convert(scalar.type, Expression::parse(scalar.value).evaluate_int(lookup));
}

}  // namespace blocktune
