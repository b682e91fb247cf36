// Counting search spaces without listing them (issue 15): seconds, peak RSS
// and memo entries of ConstrainedSpace on large spaces, and configurations
// unranked per second. One space per run, so that the peak RSS is that
// space's:
//
//   bench_space raw1e7 | raw1e9 | hotspot | dense
//
// Prints one line of key=value pairs; exits 1 where a count differs from the
// expected one.

#include <blocktune/candidates.hpp>

#include <fmt/format.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <random>
#include <string>

namespace {

using blocktune::ConstrainedSpace;
using blocktune::Lookup;
using blocktune::SearchSpace;
using blocktune::Value;

std::vector<Value> range(std::int64_t first, std::int64_t last, std::int64_t step = 1) {
  std::vector<Value> values;
  for (std::int64_t v = first; v <= last; v += step) values.emplace_back(v);
  return values;
}

std::vector<Value> powers_of_two(std::int64_t first, std::int64_t last) {
  std::vector<Value> values;
  for (std::int64_t v = first; v <= last; v *= 2) values.emplace_back(v);
  return values;
}

std::vector<Value> names(std::initializer_list<const char*> texts) {
  std::vector<Value> values;
  for (const char* text : texts) values.emplace_back(std::string(text));
  return values;
}

struct Case {
  SearchSpace space;
  Lookup environment;
  std::optional<std::uint64_t> expected;  // the count where it is known independently
};

// 9.8 million raw points: a 3D block with 2D tiling, unrolling, vectors and a cache choice.
Case raw1e7() {
  Case c;
  SearchSpace& s = c.space;
  s.add_parameter({"block_x", powers_of_two(1, 1024)});
  s.add_parameter({"block_y", powers_of_two(1, 1024)});
  s.add_parameter({"block_z", powers_of_two(1, 64)});
  s.add_parameter({"tile_x", range(1, 16)});
  s.add_parameter({"tile_y", range(1, 16)});
  s.add_parameter({"unroll", powers_of_two(1, 16)});
  s.add_parameter({"vector", powers_of_two(1, 4)});
  s.add_parameter({"cache", names({"none", "l1", "shared"})});
  s.add_constraint("block_x * block_y * block_z <= max_threads_per_block");
  s.add_constraint("block_x * block_y * block_z >= 32");
  s.add_constraint("block_x * tile_x * vector <= 4096");
  s.add_constraint("unroll <= tile_x * tile_y");
  s.add_constraint("cache != 'shared' || (block_x * tile_x * vector + 2) * (block_y * tile_y + 2) * 4 <= max_shared_per_block");
  c.environment = [](std::string_view name) -> std::optional<Value> {
    if (name == "max_threads_per_block") return Value{std::int64_t{1024}};
    if (name == "max_shared_per_block") return Value{std::int64_t{48 * 1024}};
    return std::nullopt;
  };
  c.expected = 2146573;  // tests/search/test_constrained_space.cpp counts it by plain loops
  return c;
}

// 1.2 billion raw points: a tiled matrix multiply with selective constraints
// (divisibility, shared memory, a register estimate over seven parameters).
Case raw1e9() {
  Case c;
  SearchSpace& s = c.space;
  s.add_parameter({"block_m", powers_of_two(16, 256)});
  s.add_parameter({"block_n", powers_of_two(16, 256)});
  s.add_parameter({"block_k", powers_of_two(8, 128)});
  s.add_parameter({"threads_m", powers_of_two(4, 32)});
  s.add_parameter({"threads_n", powers_of_two(4, 32)});
  s.add_parameter({"vector_a", powers_of_two(1, 8)});
  s.add_parameter({"vector_b", powers_of_two(1, 8)});
  s.add_parameter({"vector_c", powers_of_two(1, 8)});
  s.add_parameter({"stages", range(1, 4)});
  s.add_parameter({"split_k", powers_of_two(1, 8)});
  s.add_parameter({"layout_a", names({"row", "col"})});
  s.add_parameter({"layout_b", names({"row", "col"})});
  s.add_parameter({"swizzle", powers_of_two(1, 8)});
  s.add_parameter({"unroll_k", powers_of_two(1, 8)});
  s.add_parameter({"cache_a", names({"none", "l1", "shared"})});
  s.add_parameter({"cache_b", names({"none", "l1", "shared"})});
  s.add_constraint("threads_m * threads_n >= 64");
  s.add_constraint("block_m % (threads_m * vector_a) == 0 && block_n % (threads_n * vector_b) == 0");
  s.add_constraint("block_n % (threads_n * vector_c) == 0");
  s.add_constraint("stages * (block_m + block_n) * block_k * 4 <= 98304");
  s.add_constraint("split_k == 1 || block_k * split_k <= 128");
  s.add_constraint("layout_a == 'row' || vector_a <= 4");
  s.add_constraint("layout_b == 'col' || vector_b <= 4");
  s.add_constraint("swizzle <= block_m / 16");
  s.add_constraint("block_k % unroll_k == 0");
  // Accumulators, fragments and the unrolled loads must fit 255 registers.
  s.add_constraint("block_m / threads_m * (block_n / threads_n) + (vector_a + vector_b) * unroll_k + 32 <= 255");
  s.add_constraint("cache_a == 'shared' || cache_b == 'shared' || stages == 1");
  return c;
}

// The BAT hotspot benchmark's space (a 2D thermal stencil with temporal
// tiling), with the device limits under which Kernel Tuner's benchmark counts
// 349,853 valid configurations of 22.2 million.
Case hotspot() {
  Case c;
  SearchSpace& s = c.space;
  std::vector<Value> block_x = powers_of_two(1, 16);
  for (const Value& v : range(32, 1024, 32)) block_x.push_back(v);
  s.add_parameter({"block_size_x", block_x});
  s.add_parameter({"block_size_y", powers_of_two(1, 32)});
  s.add_parameter({"tile_size_x", range(1, 10)});
  s.add_parameter({"tile_size_y", range(1, 10)});
  s.add_parameter({"temporal_tiling_factor", range(1, 10)});
  s.add_parameter({"max_tfactor", range(10, 10)});
  s.add_parameter({"loop_unroll_factor_t", range(1, 10)});
  s.add_parameter({"sh_power", range(0, 1)});
  s.add_parameter({"blocks_per_sm", range(0, 4)});
  const std::string shared_bytes =
      "(block_size_x * tile_size_x + temporal_tiling_factor * 2) * (block_size_y * tile_size_y + temporal_tiling_factor * 2) * "
      "(2 + sh_power) * 4";
  s.add_constraint("block_size_x * block_size_y >= 32");
  s.add_constraint("temporal_tiling_factor % loop_unroll_factor_t == 0");
  s.add_constraint("block_size_x * block_size_y <= max_threads");
  s.add_constraint(shared_bytes + " <= max_shared_memory_per_block");
  s.add_constraint("blocks_per_sm == 0 || " + shared_bytes + " * blocks_per_sm <= max_shared_memory");
  c.environment = [](std::string_view name) -> std::optional<Value> {
    if (name == "max_threads") return Value{std::int64_t{1024}};
    if (name == "max_shared_memory_per_block") return Value{std::int64_t{49152}};
    if (name == "max_shared_memory") return Value{std::int64_t{102400}};
    return std::nullopt;
  };
  c.expected = 349853;
  return c;
}

// The solver's worst shape: one constraint over every parameter, so that
// every prefix is remembered (20^4 memo entries at the fifth parameter) and
// every raw point is evaluated.
Case dense() {
  Case c;
  for (const char* name : {"a", "b", "c", "d", "e", "f"}) c.space.add_parameter({name, range(0, 19)});
  c.space.add_constraint("(a * b + c * d + e * f) % 5 != 0");
  return c;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024;
}

}  // namespace

int main(int argc, char** argv) {
  const std::map<std::string, Case (*)()> cases = {{"raw1e7", raw1e7}, {"raw1e9", raw1e9}, {"hotspot", hotspot}, {"dense", dense}};
  const auto chosen = argc == 2 ? cases.find(argv[1]) : cases.end();
  if (chosen == cases.end()) {
    std::fprintf(stderr, "usage: bench_space raw1e7|raw1e9|hotspot|dense\n");
    return 2;
  }
  const Case c = chosen->second();

  auto start = std::chrono::steady_clock::now();
  const ConstrainedSpace space(c.space, c.environment);
  const double count_seconds = seconds_since(start);
  const double count_rss = peak_rss_mib();

  // Uniform random unranking, and ranking back, for about a second each.
  std::mt19937_64 random(1);
  std::vector<std::uint64_t> indices(200000);
  for (auto& index : indices) index = random() % space.size();  // the modulo bias is irrelevant to timing
  start = std::chrono::steady_clock::now();
  std::vector<blocktune::Config> configs;
  for (const std::uint64_t index : indices) {
    configs.push_back(space.at(index));
    if (seconds_since(start) > 1) break;
  }
  const double unranked_per_second = static_cast<double>(configs.size()) / seconds_since(start);
  start = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < configs.size(); ++i)
    if (space.index_of(configs[i]) != indices[i]) {
      std::fprintf(stderr, "index_of(at(%llu)) differs\n", static_cast<unsigned long long>(indices[i]));
      return 1;
    }
  const double ranked_per_second = static_cast<double>(configs.size()) / seconds_since(start);

  fmt::print("space={} raw={:.4g} valid={} count_s={:.3f} memo_entries={} peak_rss_mib={:.1f} unrank_per_s={:.0f} rank_per_s={:.0f}\n",
             chosen->first, c.space.raw_size(), space.size(), count_seconds, space.memo_entries(), count_rss, unranked_per_second,
             ranked_per_second);
  if (c.expected && space.size() != *c.expected) {
    fmt::print(stderr, "expected {} valid configurations\n", *c.expected);
    return 1;
  }
  return 0;
}
