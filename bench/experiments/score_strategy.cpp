// The methodology score of one strategy, mean over seeds 1..N, on recorded
// spaces or Kernel Tuner caches: the score column of `blocktune replay run`
// (the same replay code, search/replay.hpp) without its slower near-optimal
// and unlimited runs, for sweeping a strategy's constants quickly. MODE:
// model (the recording's predicted_s as model scores), none, or a
// perturbation of them: shuffle, invert, noise. VERBOSE=1 prints each seed.
// Build (from the repository root, after a build in build/):
//   g++ -std=c++20 -O2 -Isearch/include -Ireplay/include -Idb/include bench/experiments/score_strategy.cpp \
//     -Wl,--start-group build/replay/libblocktune_replay.a build/db/libblocktune_db.a build/db/libblocktune_runtime.a \
//     build/search/libblocktune_search.a -Wl,--end-group -lsqlite3 -lz -lfmt -o /tmp/score_strategy
//   /tmp/score_strategy surrogate none 20 tests/data/spaces/stencil3d_r3-512x512x512-h100-80gb-hbm3.csv.gz
#include <blocktune/recording.hpp>
#include <blocktune/replay.hpp>
#include <blocktune/candidates.hpp>
#include <fmt/format.h>
#include <algorithm>
#include <random>
#include <cmath>
#include <cstring>
using namespace blocktune;
int main(int argc, char** argv) {
  std::string strat = argv[1], mode = argv[2];
  int seeds = std::atoi(argv[3]);
  double total_all = 0; int nspaces = 0;
  for (int a = 4; a < argc; ++a) {
    std::string file = argv[a];
    Recording rec = file.find(".json") != std::string::npos ? read_kernel_tuner_recording(file) : read_recording(file);
    std::optional<ModelScores> model;
    if (mode != "none" && !rec.predicted_seconds.empty()) {
      auto p = rec.predicted_seconds;
      std::mt19937 g(42);
      if (mode == "shuffle") std::shuffle(p.begin(), p.end(), g);
      if (mode == "invert") for (auto& v : p) v = 1e-6 / v;
      if (mode == "noise") { std::lognormal_distribution<double> d(0, 1.0); for (auto& v : p) v *= d(g); }
      model = listed_model_scores(p, true);
    }
    auto strategy = make_strategy(strat);
    RandomBaseline random(rec.space);
    double budget = random.budget_seconds();
    ListedCandidates cands(rec.space.configs);
    Evaluator ev = [&](std::uint64_t c) { return Evaluation{rec.space.time[c], rec.space.cost_seconds[c]}; };
    double total = 0;
    for (int s = 1; s <= seeds; ++s) {
      SearchResult r = strategy->run(cands, model ? &*model : nullptr, ev, Budget{.seconds = budget}, s);
      double sc = methodology_score(BestSoFar(r), random, budget);
      total += sc;
      if (getenv("VERBOSE")) {
        std::string trace; double best = 1e30; int i = 0;
        for (auto& [c, e] : r.history) { ++i; if (e.time && *e.time < best) { best = *e.time; trace += fmt::format(" {}:{:.3f}", i, best / random.optimum()); } }
        BestSoFar b(r); std::string ps;
        for (int k = 1; k <= 10; ++k) ps += fmt::format(" {:.2f}", performance_at(b, random, budget * k / 10));
        fmt::print("  P:{}\n", ps);
        fmt::print("  seed {} score {:.3f} evals {} |{}\n", s, sc, r.history.size(), trace);
      }
    }
    auto name = file.substr(file.rfind('/') + 1) + fmt::format(" n={} draws={}", rec.space.configs.size(), random.draws_by(budget));
    fmt::print("{:<70} {:>7.3f}\n", name.substr(0, 70), total / seeds);
    total_all += total / seeds; ++nspaces;
  }
  fmt::print("{:<50} {:>7.3f}\n", "MEAN", total_all / nspaces);
}
