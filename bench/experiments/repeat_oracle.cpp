// How much of a recorded space's ranking is measurement noise: given two
// recordings of the same space (the same kernel, problem and device, measured
// one after the other: bench/gpu/record-repeats.sh), scores on recording B,
// by the methodology of search/replay.hpp, an "oracle" that measures B's
// configurations in the order of A's times, fastest first, and the oracle of
// B's own times. Where the first is far below the second, B's optimum is
// noise that no search can know in advance. Also prints how far the two
// recordings' times differ per configuration (mean and standard deviation of
// the log ratio, in percent).
// Build (from the repository root, after a build in build/; one command):
//   g++ -std=c++20 -O2 -Isearch/include -Ireplay/include -Idb/include bench/experiments/repeat_oracle.cpp
//     -Wl,--start-group build/replay/libblocktune_replay.a build/db/libblocktune_db.a build/db/libblocktune_runtime.a
//     build/search/libblocktune_search.a -Wl,--end-group -lsqlite3 -lz -lfmt -o /tmp/repeat_oracle
//   /tmp/repeat_oracle bench/results/spaces/transpose-8192x8192-h200.csv.gz bench/results/spaces/transpose-8192x8192-h200-repeat2.csv.gz
#include <blocktune/recording.hpp>
#include <blocktune/replay.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <numeric>
#include <string>
#include <unordered_map>
#include <vector>

using namespace blocktune;

namespace {

// B's candidates, fastest first by `time_of` (failed and unknown ones last).
template <typename TimeOf>
std::vector<std::uint64_t> fastest_first(const RecordedSpace& b, TimeOf time_of) {
  std::vector<std::uint64_t> order(b.configs.size());
  std::iota(order.begin(), order.end(), 0);
  std::ranges::stable_sort(order, [&](std::uint64_t x, std::uint64_t y) { return time_of(x) < time_of(y); });
  return order;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    fmt::print(stderr, "usage: {} RECORDING_A RECORDING_B\n", argv[0]);
    return 2;
  }
  const Recording a = read_recording(argv[1]), b = read_recording(argv[2]);
  constexpr double kUnknown = std::numeric_limits<double>::infinity();
  std::unordered_map<std::string, double> time_in_a;
  for (std::size_t i = 0; i < a.space.configs.size(); ++i)
    if (a.space.time[i]) time_in_a[a.space.configs[i].to_string()] = *a.space.time[i];
  const auto a_time = [&](std::uint64_t i) {
    const auto found = time_in_a.find(b.space.configs[i].to_string());
    return found == time_in_a.end() ? kUnknown : found->second;
  };
  const auto b_time = [&](std::uint64_t i) { return b.space.time[i].value_or(kUnknown); };

  const RandomBaseline random(b.space);
  const double budget = random.budget_seconds();
  const auto score = [&](const std::vector<std::uint64_t>& order) {
    return methodology_score(BestSoFar(replay_sequence(b.space, order)), random, budget);
  };
  const auto by_a = fastest_first(b.space, a_time);

  std::vector<double> log_ratios;
  for (std::size_t i = 0; i < b.space.configs.size(); ++i)
    if (b.space.time[i] && a_time(i) != kUnknown) log_ratios.push_back(std::log(*b.space.time[i] / a_time(i)));
  const double mean = std::accumulate(log_ratios.begin(), log_ratios.end(), 0.0) / static_cast<double>(log_ratios.size());
  double squares = 0;
  for (const double ratio : log_ratios) squares += (ratio - mean) * (ratio - mean);

  fmt::print("{}: {} configurations in both, random search affords {} in the budget\n",
             std::filesystem::path(argv[2]).filename().string(), log_ratios.size(), random.draws_by(budget));
  fmt::print("  B / A time per configuration: mean {:+.2f}%, standard deviation {:.2f}%\n", 100 * mean,
             100 * std::sqrt(squares / static_cast<double>(log_ratios.size() - 1)));
  fmt::print("  A's fastest is {:.4f}x B's optimum in B\n", b_time(by_a.front()) / random.optimum());
  fmt::print("  score on B: in A's order {:.3f}, in B's own order {:.3f}\n", score(by_a), score(fastest_first(b.space, b_time)));
}
