// The default strategy's methodology score on recorded spaces with the model's
// recorded predictions as they are and corrected by the nearest other problem
// size (blocktune/transfer.hpp, what `tune` does with the sizes its database
// holds): mean over seeds 1..N. The other size is taken from the recordings
// listed in POOL (one path a line) of the same kernel, device name and timing
// at another problem, as nearest_size_transfer chooses it (`replay run
// --sizes-from`), from its measured times and recorded predictions (give it
// recordings whose predictions are today's model's); each line ends with that
// size's file and its model distance (SizeTransfer::model_distance).
// Build as score_strategy.cpp (its header has the g++ line), then:
//   /tmp/score_transfer [--corrected-only] 10 POOL SPACE...
#include <blocktune/db_types.hpp>
#include <blocktune/recording.hpp>
#include <blocktune/replay.hpp>
#include <blocktune/transfer.hpp>

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

using namespace blocktune;

namespace {

std::pair<double, double> mean_score(const Recording& recording, const ModelScores& model, int seeds) {
  const auto strategy = make_strategy(kDefaultStrategy);
  const RandomBaseline random(recording.space);
  const double budget = random.budget_seconds();
  double sum = 0, squares = 0;
  for (int seed = 1; seed <= seeds; ++seed) {
    const double run = methodology_score(BestSoFar(replay(recording.space, *strategy, Budget{.seconds = budget}, seed, &model)), random, budget);
    sum += run;
    squares += run * run;
  }
  const double mean = sum / seeds;
  return {mean, seeds > 1 ? std::sqrt(std::max(0.0, (squares - seeds * mean * mean) / (seeds - 1)) / seeds) : 0.0};
}

}  // namespace

int main(int argc, char** argv) {
  // --corrected-only: the corrected column alone (the other printed as 0), half the time.
  const bool corrected_only = argc > 1 && std::string_view(argv[1]) == "--corrected-only";
  if (corrected_only) {
    --argc;
    ++argv;
  }
  const int seeds = argc > 3 ? std::atoi(argv[1]) : 0;
  if (seeds < 1) {
    fmt::print(stderr, "usage: {} [--corrected-only] SEEDS POOL SPACE...\n", argv[0]);
    return 2;
  }
  std::vector<std::string> pool_files;
  std::vector<Recording> pool;
  std::ifstream list(argv[2]);
  for (std::string line; std::getline(list, line);)
    if (!line.empty()) {
      pool.push_back(read_recording(line));
      pool_files.push_back(line);
    }
  fmt::print("{:<90} {:>15} {:>15}  {}\n", "space", "model", "transferred", "from (its model distance)");
  for (int a = 3; a < argc; ++a) {
    const Recording recording = read_recording(argv[a]);
    const auto model = recorded_model_scores(recording);
    if (!model || !model->are_times) {
      fmt::print("{:<90} no predictions\n", argv[a]);
      continue;
    }
    const auto [as_is, as_is_error] = corrected_only ? std::pair(0.0, 0.0) : mean_score(recording, *model, seeds);
    auto transfer = nearest_size_transfer(recording, pool);
    const std::string name = argv[a];
    if (!transfer) {
      fmt::print("{:<90} {:>7.3f} +- {:.3f} {:>15}  none\n", name, as_is, as_is_error, "-");
      continue;
    }
    const double corrected_distance = transfer->transfer.model_distance();
    const ModelScores corrected = transferred_scores(*model, std::move(transfer->transfer), [&](std::uint64_t i) { return recording.space.configs[i].to_string(); },
                                                         recording.space.configs.size());
    const auto [transferred, transferred_error] = mean_score(recording, corrected, seeds);
    fmt::print("{:<90} {:>7.3f} +- {:.3f} {:>7.3f} +- {:.3f}  {} {:.6f}\n", name, as_is, as_is_error, transferred, transferred_error,
               pool_files[transfer->index], corrected_distance);
  }
}
