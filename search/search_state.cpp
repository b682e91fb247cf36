#include "search_state.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace blocktune::detail {

std::uint64_t Random::below(std::uint64_t n) {
  // Rejection sampling: accept only below the largest multiple of n, so that
  // the remainder is unbiased.
  const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() / n * n;
  std::uint64_t draw = engine_();
  while (draw >= limit) draw = engine_();
  return draw % n;
}

double Random::uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

SearchState::SearchState(const CandidateSpace& space) : space_(space) {
  if (!whole()) return;
  unproposed_.resize(size());
  slot_.resize(size());
  std::iota(unproposed_.begin(), unproposed_.end(), std::uint64_t{0});
  std::iota(slot_.begin(), slot_.end(), std::uint32_t{0});
}

bool SearchState::told(std::uint64_t candidate) const {
  const auto found = entries_.find(candidate);
  return found != entries_.end() && found->second.told;
}

std::optional<double> SearchState::time(std::uint64_t candidate) const {
  const auto found = entries_.find(candidate);
  return found == entries_.end() ? std::nullopt : found->second.time;
}

bool SearchState::faster(std::uint64_t a, std::uint64_t b) const {
  const auto time_a = time(a);
  if (!time_a) return false;
  const auto time_b = time(b);
  return !time_b || *time_a < *time_b;
}

std::optional<std::uint64_t> SearchState::random_unproposed(Random& random) const {
  if (whole()) {
    if (unproposed_.empty()) return std::nullopt;
    return unproposed_[random.below(unproposed_.size())];
  }
  // A uniform index, drawn again while it is taken: proposals are a vanishing
  // fraction of a space this large, unless a search goes on for ever.
  constexpr int kDraws = 64;
  for (int draw = 0; draw < kDraws; ++draw)
    if (const std::uint64_t candidate = random.below(size()); !proposed(candidate)) return candidate;
  const std::uint64_t from = random.below(size());
  if (const auto after = first_unproposed(from)) return after;
  return first_unproposed(0);
}

std::optional<std::uint64_t> SearchState::first_unproposed(std::uint64_t from) const {
  for (std::uint64_t candidate = from; candidate < size(); ++candidate)
    if (!proposed(candidate)) return candidate;
  return std::nullopt;
}

void SearchState::propose(std::uint64_t candidate) {
  if (candidate >= size())
    throw std::invalid_argument(fmt::format("candidate {} is outside the space of {}", candidate, size()));
  if (!entries_.emplace(candidate, Entry{}).second)
    throw std::invalid_argument(fmt::format("candidate {} was proposed before", candidate));
  if (!whole()) return;
  const std::uint32_t slot = slot_[candidate];
  unproposed_[slot] = unproposed_.back();
  slot_[unproposed_[slot]] = slot;
  unproposed_.pop_back();
}

void SearchState::tell(std::uint64_t candidate, std::optional<double> time) {
  const auto found = entries_.find(candidate);
  if (found == entries_.end() || found->second.told)
    throw std::invalid_argument(fmt::format("candidate {} was told without being proposed, or told twice", candidate));
  found->second = {true, time};
  ++told_;
  if (time && (!best_ || *time < *this->time(*best_))) best_ = candidate;
}

Prior::Prior(const ModelScores* model, const SearchState& state) : model_(model) {
  if (!model_) return;
  if (!model_->score) throw std::invalid_argument("model scores without a score function");
  if (!state.whole()) return;
  whole_.resize(state.size());
  if (model_->resident_warps) whole_resident_.resize(state.size());
  for (std::uint64_t candidate = 0; candidate < state.size(); ++candidate) keep_whole(candidate, checked(candidate, model_->score(candidate)));
}

// A candidate's resident warps asked next to its score: a model that plans
// each candidate once serves both (ModelScores::resident_warps).
void Prior::keep_whole(std::uint64_t candidate, double score) {
  whole_[candidate] = score;
  if (!whole_resident_.empty()) whole_resident_[candidate] = static_cast<std::uint8_t>(asked_resident_warps(candidate));
}

double Prior::checked(std::uint64_t candidate, double score) const {
  if (!std::isfinite(score) || (model_->are_times && score <= 0))
    throw std::invalid_argument(fmt::format("the model score of candidate {} is {}: model scores must be finite{}",
                                            candidate, score, model_->are_times ? " positive times" : ""));
  return score;
}

double Prior::score(std::uint64_t candidate) const {
  if (!whole_.empty()) return whole_[candidate];
  if (const auto found = refined_.find(candidate); found != refined_.end()) return found->second;
  return checked(candidate, model_->score(candidate));
}

int Prior::resident_warps(std::uint64_t candidate) const {
  return whole_resident_.empty() ? asked_resident_warps(candidate) : whole_resident_[candidate];
}

int Prior::asked_resident_warps(std::uint64_t candidate) const {
  const int warps = model_->resident_warps(candidate);
  if (warps < 0) throw std::invalid_argument(fmt::format("candidate {} keeps {} warps resident: a count must not be negative", candidate, warps));
  return std::min(warps, kMaxResidentWarps);
}

void Prior::refine(std::uint64_t candidate, double score) {
  if (!model_) return;
  checked(candidate, score);
  if (whole_.empty()) refined_[candidate] = score;
  else keep_whole(candidate, score);
}

CandidatePool::CandidatePool(const SearchState& state, Random& random) : state_(state), random_(random) {
  if (state.whole()) {
    members_.resize(state.size());
    std::iota(members_.begin(), members_.end(), std::uint64_t{0});
  } else {
    draw();
  }
}

std::size_t CandidatePool::position(std::uint64_t candidate) {
  if (state_.whole()) return candidate;
  const auto [found, added] = position_.emplace(candidate, members_.size());
  if (added) {
    members_.push_back(candidate);
    ++added_since_refill_;
  }
  return found->second;
}

bool CandidatePool::refill() {
  if (state_.whole()) return false;
  std::size_t unproposed = 0;
  for (const std::uint64_t candidate : members_) unproposed += state_.proposed(candidate) ? 0 : 1;
  if (unproposed >= kSize / 2 && added_since_refill_ <= kSize) return false;
  // The most recently added of those left, then a new sample.
  std::vector<std::uint64_t> kept;
  for (auto member = members_.rbegin(); member != members_.rend() && kept.size() < kSize / 2; ++member)
    if (!state_.proposed(*member)) kept.push_back(*member);
  std::reverse(kept.begin(), kept.end());
  members_ = std::move(kept);
  position_.clear();
  for (std::size_t i = 0; i < members_.size(); ++i) position_.emplace(members_[i], i);
  draw();
  return true;
}

void CandidatePool::draw() {
  added_since_refill_ = 0;
  // Stops early where the space has run out of candidates not proposed.
  for (std::size_t attempt = 0; members_.size() < kSize && attempt < 4 * kSize; ++attempt) {
    const auto candidate = state_.random_unproposed(random_);
    if (!candidate) break;
    if (position_.emplace(*candidate, members_.size()).second) members_.push_back(*candidate);
  }
}

std::vector<std::uint64_t> Run::unproposed_neighbours(std::uint64_t candidate) const {
  std::vector<std::uint64_t> neighbours = state.space().neighbours(candidate);
  std::erase_if(neighbours, [&](std::uint64_t n) { return state.proposed(n); });
  return neighbours;
}

}  // namespace blocktune::detail
