// One seed of the default strategy replayed on a recorded space (or a Kernel Tuner cache, *.json[.gz]), measurement by
// measurement: simulated time, cost, time measured, best so far over the optimum,
// the model's prediction and the configuration (the first 40, then every 25th),
// and the run's methodology score. MODE is `model` or `none`, as score_strategy.
// Build as score_strategy.cpp (its header has the g++ line), then:
//   /tmp/trace_search SPACE.csv.gz model|none SEED
#include <blocktune/recording.hpp>
#include <blocktune/replay.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>

using namespace blocktune;

int main(int argc, char** argv) {
  if (argc != 4) {
    fmt::print(stderr, "usage: {} SPACE model|none SEED\n", argv[0]);
    return 2;
  }
  const std::string file = argv[1];
  const Recording recording = file.find(".json") != std::string::npos ? read_kernel_tuner_recording(file) : read_recording(file);
  const bool with_model = std::string_view(argv[2]) == "model";
  const int seed = std::atoi(argv[3]);
  const auto model = with_model ? recorded_model_scores(recording) : std::nullopt;
  const RandomBaseline random(recording.space);
  const double budget = random.budget_seconds();
  const auto strategy = make_strategy(kDefaultStrategy);
  const SearchResult result = replay(recording.space, *strategy, Budget{.seconds = budget}, seed, model ? &*model : nullptr);
  double spent = 0, best = 1e9, optimum = 1e9;
  for (const auto& time : recording.space.time)
    if (time) optimum = std::min(optimum, *time);
  int n = 0;
  for (const auto& [candidate, evaluation] : result.history) {
    spent += evaluation.cost_seconds;
    if (evaluation.time) best = std::min(best, *evaluation.time);
    if (n < 40 || n % 25 == 0)
      fmt::print("{:3d} t={:6.1f}s cost={:5.2f} time={:7.4f}ms best/opt={:5.3f} pred={:8.4f} {}\n", n, spent, evaluation.cost_seconds,
                 evaluation.time ? *evaluation.time * 1e3 : -1.0, best / optimum,
                 recording.predicted_seconds.empty() ? 0.0 : recording.predicted_seconds[candidate] * 1e3, recording.space.configs[candidate].to_string());
    ++n;
  }
  fmt::print("score {:.3f}, {} measured, budget {:.1f}s\n", methodology_score(BestSoFar(result), random, budget), n, budget);
}
