// The methodology score of one strategy, mean over seeds 1..N, on recorded
// spaces or Kernel Tuner caches: the score column of `blocktune replay run`
// (the same replay code, search/replay.hpp) without its slower near-optimal
// and unlimited runs, for sweeping a strategy's constants quickly. MODE is
// `model` (the model scores replay run would give) or `none`; models made
// wrong on purpose are recorded spaces written by perturb_predictions.py.
// With --no-default before the spaces, the kernel's default configuration
// (the recording's note) is not measured first; with --no-resident-warps, the
// search is not given the launches' resident warps the recording may have. Each space's line ends with the standard error of its mean over the seeds
// (the spread of the seeds' scores over sqrt(N)): two strategies differ by
// more than noise only where their means differ by a few of them.
// Build (from the repository root, after a build in build/; one command):
//   g++ -std=c++20 -O2 -Isearch/include -Ireplay/include -Idb/include bench/experiments/score_strategy.cpp
//     -Wl,--start-group build/replay/libblocktune_replay.a build/db/libblocktune_db.a build/db/libblocktune_runtime.a
//     build/search/libblocktune_search.a -Wl,--end-group -lsqlite3 -lz -lfmt -o /tmp/score_strategy
//   /tmp/score_strategy surrogate none 20 tests/data/spaces/stencil3d_r3-512x512x512-h100-80gb-hbm3.csv.gz
#include <blocktune/recording.hpp>
#include <blocktune/replay.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

using namespace blocktune;

int main(int argc, char** argv) {
  const std::string_view mode = argc > 2 ? argv[2] : "";
  const int seeds = argc > 3 ? std::atoi(argv[3]) : 0;
  if (argc < 5 || (mode != "model" && mode != "none") || seeds < 1) {
    fmt::print(stderr, "usage: {} STRATEGY model|none SEEDS [--no-default] [--no-resident-warps] SPACE...\n", argv[0]);
    return 2;
  }
  const auto strategy = make_strategy(argv[1]);
  bool from_default = true, resident_warps = true;
  int first_space = 4;
  for (; first_space < argc; ++first_space) {
    const std::string_view option = argv[first_space];
    if (option == "--no-default") from_default = false;
    else if (option == "--no-resident-warps") resident_warps = false;
    else break;
  }
  double total = 0;
  for (int a = first_space; a < argc; ++a) {
    const std::filesystem::path file = argv[a];
    Recording recording = file.string().find(".json") != std::string::npos ? read_kernel_tuner_recording(file)
                                                                           : read_recording(file);
    if (!from_default) recording.space.first.clear();
    if (!resident_warps) recording.resident_warps.clear();
    const auto model = mode == "model" ? recorded_model_scores(recording) : std::nullopt;
    const RandomBaseline random(recording.space);
    const double budget = random.budget_seconds();
    double score = 0, squares = 0;
    for (int seed = 1; seed <= seeds; ++seed) {
      const double run = methodology_score(
          BestSoFar(replay(recording.space, *strategy, Budget{.seconds = budget}, seed, model ? &*model : nullptr)), random, budget);
      score += run;
      squares += run * run;
    }
    score /= seeds;
    const double variance = seeds > 1 ? std::max(0.0, (squares - seeds * score * score) / (seeds - 1)) : 0.0;
    fmt::print("{:<70} {:>7.3f} +- {:.3f}\n",
               fmt::format("{} n={} draws={}", file.filename().string(), recording.space.configs.size(), random.draws_by(budget)),
               score, std::sqrt(variance / seeds));
    total += score;
  }
  fmt::print("{:<70} {:>7.3f}\n", "MEAN", total / (argc - first_space));
}
