// The surrogate strategy (strategy.hpp): Bayesian optimisation with a cheap
// regression model, learned from the measurements.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <utility>

#include "search_state.hpp"

namespace blocktune::detail {

namespace {

// Ridge regression of log time on each parameter's value and each pair of
// values (one-hot), and on a trend along each numeric parameter's values,
// which learns which values and combinations are fast, updated after every
// measurement (recursive least squares). Where the scores give each launch's
// resident warps per SM, one more value per count of them: what was learned of
// one launch carries over to the others that keep as many threads on an SM.
//
// Given predicted times as model scores (the execution-time model's), it
// starts from them: the model's log time is one more feature whose weight
// starts at 1 and is learned like the others (the online calibration), with
// a correction of that weight per parameter value (a model that is right
// within one coding and wrong across codings). A model that predicts what
// this run measures keeps its weight; one that does not loses it, and the
// search becomes the model-free one. Of its own proposals, the model's
// favourite comes first where the scores count the kernel's work
// (ModelScores::count_work). (Candidates the search was started from, such as
// tune's default configuration, are learned from like any measurement but
// change nothing else of this plan.) It then measures a few candidates that
// cover the values its proposals measured least, from the middle of the numeric parameters' ranges outwards (without
// a model, the first is the most central: extremes are where the slowest and
// costliest configurations lie, and until its first result a search stands
// at the slowest time of the space); then proposes the candidate with the
// lowest confidence bound (predicted time minus one standard deviation) among
// those predicted fastest, so that values it knows little about get their
// chance; now and then the predicted-fastest neighbour of the best measured
// (to settle the details there), and now and then a random candidate (a
// model only learns where it looks). Where the scores are times measured at
// another problem size (ModelScores::measured), it measures its fastest
// prediction each time instead: that prior is no guess to guard against, and
// on a flat space the exploration costs the exact optimum (developed on the
// recordings timed with the L2 flushed, h200-flushed-1, and the warm ones
// read up to the twenty-second held-out set:
// bench/results/search-calibration/measured-prior/). Where that prior
// predicts the candidates the search was started from (tune's default
// configuration) much slower than its fastest, the fastest leads: it is
// measured first, and they follow (developed on h200-flushed-1 to -3 and the
// warm recordings: bench/results/search-calibration/measured-prior-leads/).
// Where the model's own guesses (counting the kernel's work) predict them
// much slower than its favourite, it puts them off: the search does not
// measure them, whoever drives it may after it (tune, for the report's
// speed-up; bench/results/search-calibration/guessed-prior-puts-off/);
// otherwise they come first, a safe start.
//
// It predicts the candidates of its pool (every candidate of a space searched
// whole). Ranks that are not times (the occupancy ranking of older
// recordings) are not used: on the recorded H100 stencil spaces it runs
// against speed, and even as a learned feature it made the search worse
// (bench/results/replay/README.md).
class Surrogate final : public Technique {
 public:
  explicit Surrogate(Run& run) : run_(run), pool_(run.state, run.random) {
    const CandidateSpace& space = run.state.space();
    const std::size_t dimensions = space.dimensions();

    // Feature 0 is the intercept; then one per value of each parameter; then,
    // where that stays affordable, one per pair of values.
    std::size_t features = 1;
    value_offset_.resize(dimensions);
    for (std::size_t p = 0; p < dimensions; ++p) {
      value_offset_[p] = features;
      features += space.extent(p);
    }
    const std::size_t value_features = features;
    for (std::size_t p = 0; p < dimensions; ++p) {
      for (std::size_t q = p + 1; q < dimensions; ++q) {
        pair_offset_.push_back(features);
        features += std::size_t{space.extent(p)} * space.extent(q);
      }
    }
    // Model scores that are predicted times are the prior, in log time
    // centred on the pool's mean. Scores that are only ranks (occupancy,
    // where 0 ranks first) say nothing of how much faster, and are left out.
    has_prior_ = run.prior.are_times();
    has_resident_ = run.prior.has_resident_warps();
    // The calibration: the model's weight, then its correction per value.
    // (The cap leaves out the trends, one feature per parameter.)
    const std::size_t calibration_features = has_prior_ ? value_features : 0;
    if (features + calibration_features > kMaxFeatures) {
      features = value_features;
      pair_offset_.clear();
    }
    features_per_candidate_ = 1 + dimensions + pair_offset_.size() + (has_resident_ ? 1 : 0);
    // A trend per parameter: a numeric one's value rank, from -1 (smallest)
    // to 1 (largest), lets what was learned of some values carry over to the
    // values not measured yet (a larger tile is faster still).
    trend_offset_ = features;
    features += dimensions;
    trend_.assign(value_features, 0.0);
    const std::optional<Config> first = space.size() > 0 ? std::optional(space.at(0)) : std::nullopt;
    for (std::size_t p = 0; p < dimensions && first; ++p) {
      const std::uint32_t extent = space.extent(p);
      if (extent < 3 || std::holds_alternative<std::string>(first->entries()[p].second)) continue;
      for (std::uint32_t rank = 0; rank < extent; ++rank)
        trend_[value_offset_[p] + rank] = 2.0 * rank / (extent - 1) - 1;
    }
    resident_offset_ = features;
    if (has_resident_) features += kMaxResidentWarps + 1;  // 0 to 64; 0: a launch that cannot run
    model_weight_ = features;
    features += calibration_features;

    // The prior: weights near zero, pairs more so than single values; the
    // intercept is free; the model's weight near 1, its corrections near 0.
    feature_count_ = features;
    weights_.assign(features, 0.0);
    inverse_.assign(features * features, 0.0);
    for (std::size_t f = 0; f < features; ++f) {
      const double precision = f == 0                      ? kInterceptPrecision
                               : f < value_features        ? kValuePrecision
                               : f < trend_offset_         ? kPairPrecision
                               : f < resident_offset_      ? kTrendPrecision
                               : f < model_weight_         ? kResidentPrecision
                               : f == model_weight_        ? kModelWeightPrecision
                                                           : kModelCorrectionPrecision;
      inverse_[f * features + f] = 1 / precision;
    }
    if (has_prior_) weights_[model_weight_] = 1;
    value_measurements_.assign(value_features, 0);

    if (has_prior_) {
      double mean = 0;
      for (const std::uint64_t candidate : pool_.members()) mean += std::log(run.prior.score(candidate));
      prior_mean_ = mean / static_cast<double>(std::max<std::size_t>(pool_.members().size(), 1));
    }
    rebuild();
  }

  std::optional<std::uint64_t> propose() override {
    if (pool_.refill()) rebuild();
    const auto chosen = choose();
    if (chosen) {
      for (const std::uint32_t f : features_of(member(*chosen)).subspan(1, value_offset_.size())) ++value_measurements_[f];
      ++own_proposals_;
    }
    return chosen;
  }

  void observe(std::uint64_t candidate) override {
    // A failure is learned as at least the slowest time measured, once there
    // is one: it says nothing against predicting it slower still.
    if (const auto time = run_.state.time(candidate)) {
      slowest_ = std::max(slowest_, std::log(*time));
      learn(candidate, std::log(*time));
      for (const std::uint64_t failed : std::exchange(failures_to_learn_, {})) learn_failure(failed);
    } else if (learned_ == 0) {
      failures_to_learn_.push_back(candidate);
    } else {
      learn_failure(candidate);
    }
  }

  // Where the prior predicts every start candidate much slower than its
  // favourite (its first proposal): a measured prior's favourite leads them
  // (kMeasuredLeadMargin); the model's guesses, where they count the
  // kernel's work, put them off until after the search (kGuessedPutOffMargin).
  StartPlace start_place(std::span<const std::uint64_t> start) const override {
    if (!has_prior_ || (!run_.prior.measured() && !run_.prior.count_work())) return StartPlace::first;
    const double margin = run_.prior.measured() ? kMeasuredLeadMargin : kGuessedPutOffMargin;
    const auto favourite = model_favourite();
    const bool much_slower = favourite && std::ranges::all_of(start, [&](std::uint64_t candidate) {
                               return candidate >= run_.state.size() || margin * run_.prior.score(*favourite) <= run_.prior.score(candidate);
                             });
    if (!much_slower) return StartPlace::first;
    return run_.prior.measured() ? StartPlace::after_lead : StartPlace::after_search;
  }

  std::optional<ModelCalibration> calibration() const override {
    if (!has_prior_) return std::nullopt;
    ModelCalibration calibration{.weight = weights_[model_weight_], .measurements = learned_};
    const auto corrections = std::span(weights_).subspan(model_weight_ + 1);
    if (!corrections.empty()) {
      calibration.lowest_correction = *std::ranges::min_element(corrections);
      calibration.highest_correction = *std::ranges::max_element(corrections);
    }
    return calibration;
  }

  void refined(std::uint64_t candidate) override {
    if (!has_prior_ && !has_resident_) return;
    const std::size_t position = member(candidate);
    if (has_resident_) features_[(position + 1) * features_per_candidate_ - 1] = resident_feature(candidate);
    if (has_prior_) prior_[position] = std::log(run_.prior.score(candidate)) - prior_mean_;
    predict(position);
  }

 private:
  static constexpr std::size_t kMaxFeatures = 1000;  // each measurement costs features^2
  static constexpr double kInterceptPrecision = 1e-6;
  static constexpr double kValuePrecision = 1.0;  // in log time: a value may well make a kernel e times slower
  static constexpr double kTrendPrecision = 1.0;  // a trend may make the largest value e^2 times the smallest
  static constexpr double kPairPrecision = 3.0;   // pairs matter less, and there are many
  // A count of resident warps weighs as one more parameter value (chosen on
  // the 854 stencil and example-kernel recordings read by the fortieth
  // session, judged on the eighth flushed set and the forty-first stencil set:
  // bench/results/search-calibration/resident-warps/).
  static constexpr double kResidentPrecision = 1.0;
  // The model's weight starts at 1, give or take 2, and its correction per
  // value at 0, give or take 0.5: trusted until measurements say otherwise
  // (bench/results/search-calibration: how they were chosen, and on which spaces).
  static constexpr double kModelWeightPrecision = 0.25;
  static constexpr double kModelCorrectionPrecision = 4.0;
  // Measurements covering the values before the regression leads: 10, or on
  // a small space, one per 400 candidates but at least 3 (on 136 to 219
  // candidates, 10 left too few measurements to the regression).
  static constexpr std::uint64_t kStart = 10, kStartMinimum = 3, kCandidatesPerStart = 400;
  static constexpr double kExplore = 0.2;         // chance of a random candidate
  static constexpr double kLocal = 0.4;           // chance of a neighbour of the best
  // With the model's prior the regression already knows the space's broad
  // shape: fewer random candidates, more neighbours of the best (developed on
  // the 64 recorded and public spaces, judged on the sixth held-out set:
  // bench/results/search-calibration/exploit-with-prior/).
  static constexpr double kExploreWithPrior = 0.05, kLocalWithPrior = 0.8;
  static constexpr std::size_t kShortlist = 64;   // predicted fastest, of which the lowest bound is taken
  // ... but at most this fraction of the space: on a space of a few hundred,
  // 64 candidates would be half of it and the bound would only explore.
  static constexpr double kShortlistFraction = 0.05;
  static constexpr double kConfidence = 1.0;  // standard deviations below the prediction

  std::optional<std::uint64_t> choose() {
    if (own_proposals_ == 0 && has_prior_ && run_.prior.count_work()) return model_favourite();
    if (has_prior_ && run_.prior.measured()) return lowest_bound(0);
    if (own_proposals_ < covering_) return least_measured_values();
    if (run_.random.uniform() < (has_prior_ ? kExploreWithPrior : kExplore)) return run_.state.random_unproposed(run_.random);
    if (run_.random.uniform() < (has_prior_ ? kLocalWithPrior : kLocal) && run_.state.best()) {
      std::optional<std::pair<double, std::uint64_t>> favourite;
      for (const std::uint64_t neighbour : run_.unproposed_neighbours(*run_.state.best())) {
        const std::pair predicted(prediction_[member(neighbour)], neighbour);
        if (!favourite || predicted < *favourite) favourite = predicted;
      }
      if (favourite) return favourite->second;
    }
    return lowest_bound(kConfidence);
  }

  // sum of values[f] over the features; four partial sums, because this is
  // the search's innermost loop and one would wait on every addition.
  static double sum_of(const std::vector<double>& values, std::span<const std::uint32_t> features) {
    double sums[4] = {0, 0, 0, 0};
    std::size_t i = 0;
    for (; i + 4 <= features.size(); i += 4)
      for (std::size_t lane = 0; lane < 4; ++lane) sums[lane] += values[features[i + lane]];
    for (; i < features.size(); ++i) sums[0] += values[features[i]];
    return (sums[0] + sums[1]) + (sums[2] + sums[3]);
  }

  std::span<const std::uint32_t> features_of(std::size_t position) const {
    return std::span(features_).subspan(position * features_per_candidate_, features_per_candidate_);
  }

  // The candidate's position in the pool, with its features and prediction
  // computed where it joins now.
  std::size_t member(std::uint64_t candidate) {
    const std::size_t position = pool_.position(candidate);
    if (position == prediction_.size()) append(candidate);
    return position;
  }

  // Recomputes every member's features and prediction from the weights, for
  // a pool whose members changed.
  void rebuild() {
    features_.clear();
    prior_.clear();
    prediction_.clear();
    variance_.clear();
    for (const std::uint64_t candidate : pool_.members()) append(candidate);
  }

  void append(std::uint64_t candidate) {
    const CandidateSpace& space = run_.state.space();
    point_.resize(space.dimensions());
    space.coordinates(candidate, point_);
    features_.push_back(0);
    for (std::size_t p = 0; p < point_.size(); ++p)
      features_.push_back(static_cast<std::uint32_t>(value_offset_[p] + point_[p]));
    if (!pair_offset_.empty()) {
      for (std::size_t p = 0, pair = 0; p < point_.size(); ++p)
        for (std::size_t q = p + 1; q < point_.size(); ++q, ++pair)
          features_.push_back(
              static_cast<std::uint32_t>(pair_offset_[pair] + std::size_t{point_[p]} * space.extent(q) + point_[q]));
    }
    if (has_resident_) features_.push_back(resident_feature(candidate));
    prior_.push_back(has_prior_ ? std::log(run_.prior.score(candidate)) - prior_mean_ : 0.0);
    prediction_.push_back(0);
    variance_.push_back(0);
    predict(prior_.size() - 1);
  }

  // The member's features with their values: 1 for each of features_of(),
  // its values' trends (where not 0), and its log predicted time for the
  // calibration's (the model's weight and its correction for each of the
  // member's values).
  const std::vector<std::pair<std::uint32_t, double>>& weighted_features_of(std::size_t position) {
    weighted_.clear();
    const auto x = features_of(position);
    for (const std::uint32_t f : x) weighted_.emplace_back(f, 1.0);
    for (std::size_t p = 0; p < value_offset_.size(); ++p)
      if (const double trend = trend_[x[1 + p]]; trend != 0) weighted_.emplace_back(static_cast<std::uint32_t>(trend_offset_ + p), trend);
    if (has_prior_) {
      weighted_.emplace_back(static_cast<std::uint32_t>(model_weight_), prior_[position]);
      for (const std::uint32_t f : x.subspan(1, value_offset_.size()))
        weighted_.emplace_back(static_cast<std::uint32_t>(model_weight_ + f), prior_[position]);
    }
    return weighted_;
  }

  // x'v for the member's x, given v: the sum over its features, plus each
  // trend times its feature, plus its prior times the sum over its
  // calibration features (weighted_features_of() with the values folded in).
  double dot(const std::vector<double>& values, std::size_t position) const {
    const auto x = features_of(position);
    double sum = sum_of(values, x);
    for (std::size_t p = 0; p < value_offset_.size(); ++p) sum += values[trend_offset_ + p] * trend_[x[1 + p]];
    if (has_prior_) {
      double calibration = values[model_weight_];
      for (const std::uint32_t f : x.subspan(1, value_offset_.size())) calibration += values[model_weight_ + f];
      sum += prior_[position] * calibration;
    }
    return sum;
  }

  // The member's prediction and variance (x' inverse x) from the weights.
  void predict(std::size_t position) {
    prediction_[position] = dot(weights_, position);
    const auto& x = weighted_features_of(position);
    double variance = 0;
    for (const auto& [row, row_value] : x) {
      double sum = 0;
      for (const auto& [column, column_value] : x) sum += inverse_[row * feature_count_ + column] * column_value;
      variance += row_value * sum;
    }
    variance_[position] = variance;
  }

  // The member not yet proposed whose values have been proposed least; among
  // equals, the one whose numeric values lie farthest from the values proposed
  // so far and from the ends of their ranges (the middle first, then the
  // middles of the gaps: spread out, extremes last), then at random.
  std::optional<std::uint64_t> least_measured_values() {
    update_gaps();
    double best_rarity = -1, best_gap = 0;
    std::optional<std::uint64_t> chosen;
    std::size_t ties = 0;
    const auto& members = pool_.members();
    for (std::size_t position = 0; position < members.size(); ++position) {
      if (run_.state.proposed(members[position])) continue;
      double rarity = 0, gap = 0;
      for (const std::uint32_t f : features_of(position).subspan(1, value_offset_.size())) {
        rarity += 1.0 / (1.0 + static_cast<double>(value_measurements_[f]));
        gap += gap_[f];
      }
      const double gain = rarity > best_rarity + 1e-9 ? 1 : rarity < best_rarity - 1e-9 ? -1 : gap - best_gap;
      if (gain > 1e-9) {
        best_rarity = rarity;
        best_gap = gap;
        chosen = members[position];
        ties = 1;
      } else if (gain > -1e-9 && run_.random.below(++ties) == 0) {
        chosen = members[position];  // reservoir sampling: each of the equals with the same chance
      }
    }
    return chosen;
  }

  // Per value of a numeric parameter (one with a trend), its distance on the
  // range (0 to 1) to the nearest value proposed so far or end of the range.
  void update_gaps() {
    gap_.assign(trend_.size(), 0.0);
    for (std::size_t p = 0; p < value_offset_.size(); ++p) {
      const std::size_t first = value_offset_[p];
      const std::size_t end = p + 1 < value_offset_.size() ? value_offset_[p + 1] : trend_.size();
      if (std::all_of(trend_.begin() + first, trend_.begin() + end, [](double t) { return t == 0; })) continue;
      for (std::size_t f = first; f < end; ++f) {
        const double at = (trend_[f] + 1) / 2;
        double gap = std::min(at, 1 - at);
        for (std::size_t g = first; g < end; ++g)
          if (value_measurements_[g] > 0) gap = std::min(gap, std::abs(at - (trend_[g] + 1) / 2));
        gap_[f] = gap;
      }
    }
  }

  // The member not yet proposed that the model predicts fastest (by its
  // prediction alone: the regression may have learned from the candidates
  // the search was started from, and the favourite is the model's).
  std::optional<std::uint64_t> model_favourite() const {
    std::optional<std::pair<double, std::uint64_t>> favourite;
    const auto& members = pool_.members();
    for (std::size_t position = 0; position < members.size(); ++position)
      if (!run_.state.proposed(members[position]) && (!favourite || std::pair(prior_[position], members[position]) < *favourite))
        favourite = std::pair(prior_[position], members[position]);
    if (!favourite) return std::nullopt;
    return favourite->second;
  }

  // Of the shortlist of members predicted fastest, the one whose prediction
  // minus `confidence` standard deviations is lowest.
  std::optional<std::uint64_t> lowest_bound(double confidence) {
    shortlist_.clear();
    const auto& members = pool_.members();
    for (std::size_t position = 0; position < members.size(); ++position)
      if (!run_.state.proposed(members[position])) shortlist_.emplace_back(prediction_[position], position);
    if (shortlist_.empty()) return std::nullopt;
    const auto fraction = static_cast<std::size_t>(kShortlistFraction * static_cast<double>(run_.state.size()));
    const std::size_t size = std::min({kShortlist, std::max<std::size_t>(fraction, 1), shortlist_.size()});
    std::nth_element(shortlist_.begin(), shortlist_.begin() + static_cast<std::ptrdiff_t>(size - 1), shortlist_.end());
    shortlist_.resize(size);

    // The residual spread of the measurements so far stands in for the noise.
    const double noise = learned_ > 0 ? std::sqrt(squared_errors_ / static_cast<double>(learned_)) : 0.0;
    std::optional<std::pair<double, std::size_t>> lowest;
    for (const auto& [prediction, position] : shortlist_) {
      const std::pair bound(prediction - confidence * noise * std::sqrt(std::max(variance_[position], 0.0)),
                            members[position]);
      if (!lowest || bound < *lowest) lowest = bound;
    }
    return lowest->second;
  }

  std::uint32_t resident_feature(std::uint64_t candidate) const {
    return static_cast<std::uint32_t>(resident_offset_ + static_cast<std::size_t>(run_.prior.resident_warps(candidate)));
  }

  void learn_failure(std::uint64_t candidate) { learn(candidate, std::max(slowest_, prediction_[member(candidate)])); }

  // Sherman-Morrison: the inverse of (X'X + prior) after one more row x, and
  // with it every member's prediction and variance x' inverse x.
  void learn(std::uint64_t candidate, double target) {
    const std::size_t n = feature_count_;
    const std::size_t position = member(candidate);
    std::vector<double> u(n, 0.0);  // inverse * x; the inverse is symmetric, so rows serve as columns
    for (const auto& [f, value] : weighted_features_of(position))
      for (std::size_t i = 0; i < n; ++i) u[i] += value * inverse_[f * n + i];
    const double denominator = 1 + dot(u, position);
    for (std::size_t i = 0; i < n; ++i) {
      const double scaled = u[i] / denominator;
      double* row = &inverse_[i * n];
      for (std::size_t j = 0; j < n; ++j) row[j] -= scaled * u[j];
    }
    // The weights move by u * error / denominator, so a member's prediction
    // moves by (its x' u) * error / denominator, and its variance by -(x' u)^2 / denominator.
    const double error = target - prediction_[position];
    const double step = error / denominator, shrink = 1 / denominator;
    for (std::size_t i = 0; i < n; ++i) weights_[i] += u[i] * step;
    for (std::size_t other = 0; other < prediction_.size(); ++other) {
      const double overlap = dot(u, other);
      prediction_[other] += overlap * step;
      variance_[other] -= overlap * overlap * shrink;
    }
    squared_errors_ += error * error;
    ++learned_;
  }

  Run& run_;
  CandidatePool pool_;
  bool has_prior_ = false;  // predictions start from the model's predicted times
  double prior_mean_ = 0;   // of the log predicted times of the first pool
  std::vector<std::size_t> value_offset_;  // per parameter, the feature of its first value
  std::vector<std::size_t> pair_offset_;   // per pair of parameters, the feature of its first pair of values; empty without pairs
  std::size_t trend_offset_ = 0;           // the first parameter's trend feature; the others follow
  bool has_resident_ = false;              // the scores give each launch's resident warps per SM
  std::size_t resident_offset_ = 0;        // the feature of 0 resident warps; the counts up to kMaxResidentWarps follow
  std::vector<double> trend_;              // per value feature, its trend (0 for a parameter without one)
  std::size_t model_weight_ = 0;           // the calibration's first feature; its corrections follow, by value feature
  std::size_t features_per_candidate_ = 0;
  std::size_t feature_count_ = 0;
  std::vector<double> weights_;    // the regression's, feature_count_
  std::vector<double> inverse_;    // of X'X + prior, feature_count_ squared
  // Per pool member, by position:
  std::vector<std::uint32_t> features_;  // features_per_candidate_ each
  std::vector<double> prior_;            // the model's log time, centred; 0 without
  std::vector<double> prediction_;       // log time
  std::vector<double> variance_;         // x' inverse x, the prediction's variance over the noise's
  std::vector<std::uint32_t> point_;     // reused by append()
  std::vector<std::pair<std::uint32_t, double>> weighted_;  // reused by weighted_features_of()
  std::vector<std::pair<double, std::size_t>> shortlist_;  // reused by lowest_bound()
  std::vector<std::size_t> value_measurements_;            // per value feature: proposals with that value
  std::vector<double> gap_;                                // per value feature, by update_gaps()
  const std::uint64_t covering_ =
      std::clamp<std::uint64_t>(run_.state.size() / kCandidatesPerStart, kStartMinimum, kStart);  // see kStart
  std::uint64_t own_proposals_ = 0;  // not counting the candidates it was started from
  std::size_t learned_ = 0;
  double squared_errors_ = 0;  // of each prediction just before its measurement was learned
  double slowest_ = -std::numeric_limits<double>::infinity();  // log time
  std::vector<std::uint64_t> failures_to_learn_;
};

}  // namespace

std::unique_ptr<Technique> make_surrogate(Run& run) { return std::make_unique<Surrogate>(run); }

}  // namespace blocktune::detail
