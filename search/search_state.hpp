#pragma once
// The machinery the strategies share (not installed; strategy.cpp and
// surrogate.cpp only).

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <unordered_map>
#include <vector>

#include "blocktune/strategy.hpp"

namespace blocktune::detail {

// Spaces up to this size are searched whole: every candidate is looked at
// (ranked, predicted) and the state per candidate is a vector. Larger ones are
// searched through a pool (see CandidatePool). The recorded spaces have up to
// about 2 * 10^4 candidates.
inline constexpr std::uint64_t kWholeSpaceLimit = std::uint64_t{1} << 15;

// Random numbers that are the same on every standard library: only the
// engine's raw output is used, never std::*_distribution.
class Random {
 public:
  explicit Random(std::uint64_t seed) : engine_(seed) {}

  std::uint64_t below(std::uint64_t n);  // uniform in [0, n); n > 0
  double uniform();                      // uniform in [0, 1)

 private:
  std::mt19937_64 engine_;
};

// What one search knows of its candidates: which have been proposed, the
// results told so far and the best. Memory grows with the proposals, plus, on
// a space searched whole, a few bytes per candidate.
class SearchState {
 public:
  explicit SearchState(const CandidateSpace& space);

  const CandidateSpace& space() const { return space_; }
  std::uint64_t size() const { return space_.size(); }
  bool whole() const { return size() <= kWholeSpaceLimit; }

  bool proposed(std::uint64_t candidate) const { return entries_.contains(candidate); }
  bool told(std::uint64_t candidate) const;
  // The time told for a candidate; empty for a failure or one not told yet.
  std::optional<double> time(std::uint64_t candidate) const;
  std::optional<std::uint64_t> best() const { return best_; }
  // Told a beat told b (failures are slowest).
  bool faster(std::uint64_t a, std::uint64_t b) const;
  std::uint64_t proposals() const { return entries_.size(); }
  std::uint64_t told_count() const { return told_; }

  // A uniformly random candidate not proposed yet; nullopt once all are.
  std::optional<std::uint64_t> random_unproposed(Random& random) const;
  // The first candidate not proposed yet at or after `from`, in index order.
  std::optional<std::uint64_t> first_unproposed(std::uint64_t from) const;

  // Throws std::invalid_argument for a candidate proposed before or outside the space.
  void propose(std::uint64_t candidate);
  // Throws std::invalid_argument for a candidate not pending.
  void tell(std::uint64_t candidate, std::optional<double> time);

 private:
  struct Entry {
    bool told = false;
    std::optional<double> time;
  };

  const CandidateSpace& space_;
  std::unordered_map<std::uint64_t, Entry> entries_;  // every proposed candidate
  std::uint64_t told_ = 0;
  std::optional<std::uint64_t> best_;
  // Whole spaces only: the candidates not proposed, in no particular order,
  // for O(1) random choice and removal, and each one's position there.
  std::vector<std::uint64_t> unproposed_;
  std::vector<std::uint32_t> slot_;
};

// The model's scores, with the refinements told since the search started. On
// a space searched whole every score is asked for at the start (so a score
// that is not finite stops the search before anything is proposed);
// otherwise as candidates are looked at.
class Prior {
 public:
  Prior(const ModelScores* model, const SearchState& state);

  bool given() const { return model_ != nullptr; }
  bool are_times() const { return model_ && model_->are_times; }
  bool count_work() const { return model_ && model_->count_work; }
  bool measured() const { return model_ && model_->measured; }
  // Throws std::invalid_argument for a score that is not finite (and, where
  // the scores are times, not positive).
  double score(std::uint64_t candidate) const;
  void refine(std::uint64_t candidate, double score);
  // Whether the scores give each launch's resident warps per SM, and the
  // candidate's, 0 to kMaxResidentWarps (a larger count is taken as that;
  // throws std::invalid_argument for a negative one).
  bool has_resident_warps() const { return model_ && model_->resident_warps; }
  int resident_warps(std::uint64_t candidate) const;

 private:
  double checked(std::uint64_t candidate, double score) const;

  int asked_resident_warps(std::uint64_t candidate) const;
  // On a space searched whole: the candidate's score and, where the scores
  // give them, its resident warps, asked now.
  void keep_whole(std::uint64_t candidate, double score);

  const ModelScores* model_;
  std::vector<double> whole_;                         // every candidate's score, on a space searched whole
  std::vector<std::uint8_t> whole_resident_;           // and its resident warps, where the scores give them
  std::unordered_map<std::uint64_t, double> refined_;  // elsewhere
};

// The candidates a technique looks at. On a space searched whole, every
// candidate, at its own index. On a larger one, a uniform sample of kSize
// candidates not yet proposed, plus those a technique adds (the neighbours of
// the best), refilled once half the sample has been proposed or too many
// were added: at most about 2 * kSize members.
class CandidatePool {
 public:
  static constexpr std::size_t kSize = 4096;

  CandidatePool(const SearchState& state, Random& random);

  const std::vector<std::uint64_t>& members() const { return members_; }
  // The candidate's position among the members, adding it where it is not one.
  std::size_t position(std::uint64_t candidate);
  // Drops the proposed members and draws new ones where it is time to;
  // returns whether it did (the members are then renumbered).
  bool refill();

 private:
  void draw();

  const SearchState& state_;
  Random& random_;
  std::vector<std::uint64_t> members_;
  std::unordered_map<std::uint64_t, std::size_t> position_;  // larger spaces only
  std::size_t added_since_refill_ = 0;
};

// Everything one search works with.
struct Run {
  Run(const CandidateSpace& space, const ModelScores* model, std::uint64_t seed)
      : state(space), prior(model, state), random(seed) {}

  SearchState state;
  Prior prior;
  Random random;

  std::vector<std::uint64_t> unproposed_neighbours(std::uint64_t candidate) const;
};

// Where the candidates a search was started from (tune's default
// configuration) are proposed: first; after the technique's first proposal,
// a lead it trusts more than them; or not by the search at all, put off
// until its driver asks for them after it (Search::put_off).
enum class StartPlace { first, after_lead, after_search };

// One way of choosing the next candidate. Techniques run alone or side by
// side under the bandit, so each one is told of every result.
class Technique {
 public:
  virtual ~Technique() = default;
  // A candidate not yet proposed, or nothing when the technique has no idea.
  virtual std::optional<std::uint64_t> propose() = 0;
  // A result, told after the state recorded it.
  virtual void observe(std::uint64_t /*candidate*/) {}
  // A sharper model score, recorded in the prior already.
  virtual void refined(std::uint64_t /*candidate*/) {}
  // See Search::calibration.
  virtual std::optional<ModelCalibration> calibration() const { return std::nullopt; }
  // Where `start`, the candidates the search was started from, go.
  virtual StartPlace start_place(std::span<const std::uint64_t> /*start*/) const { return StartPlace::first; }
};

std::unique_ptr<Technique> make_surrogate(Run& run);

}  // namespace blocktune::detail
