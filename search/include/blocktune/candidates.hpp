#pragma once
// The candidates a search chooses from, each named by a 64-bit index, without
// holding them in memory: a space of 10^9 raw points costs what its
// constraints' structure costs, not what its size does.
//
//   const blocktune::ConstrainedSpace space(kernel.space, environment);
//   fmt::print("{} valid configurations\n", space.size());
//   blocktune::Config third = space.at(2);
//   blocktune::Config drawn = space.at(uniform_below(space.size()));  // uniform over the valid ones
//
// Two kinds: ConstrainedSpace solves a SearchSpace's constraints (tune and
// plan), ListedCandidates wraps an explicit list (recorded spaces, replay).

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "blocktune/detail/space.hpp"

namespace blocktune {

// Every candidate has coordinates: per parameter, the rank of its value among
// that parameter's values in the space, integers ascending before strings in
// lexicographic order. Neighbours are one step apart in one coordinate.
class CandidateSpace {
 public:
  virtual ~CandidateSpace() = default;

  // The number of candidates; indices run from 0 to size() - 1.
  virtual std::uint64_t size() const = 0;
  // The candidate at `index`; throws std::out_of_range past the end.
  virtual Config at(std::uint64_t index) const = 0;
  // The index of `config`, or nullopt where it is not a candidate (a value
  // outside the space, a violated constraint, other parameter names).
  virtual std::optional<std::uint64_t> index_of(const Config& config) const = 0;

  virtual std::size_t dimensions() const = 0;
  virtual std::uint32_t extent(std::size_t parameter) const = 0;
  // Writes dimensions() coordinates of candidate `index` to `out`.
  virtual void coordinates(std::uint64_t index, std::span<std::uint32_t> out) const = 0;
  // The candidate at these coordinates, or nullopt where there is none.
  virtual std::optional<std::uint64_t> find(std::span<const std::uint32_t> coordinates) const = 0;

  // Candidates that differ from `index` in one coordinate by one step.
  std::vector<std::uint64_t> neighbours(std::uint64_t index) const;
};

// A SearchSpace's valid configurations, counted exactly by a constraint
// solver and never listed. Index order is lexicographic in the space's
// parameter order, values in their listed order (the order of
// SearchSpace::enumerate). Counting walks the parameters in that order and
// remembers, per parameter, the number of completions for each distinct
// combination of the earlier values that constraints still to be checked
// name; memory grows with those combinations, never with the valid count.
class ConstrainedSpace final : public CandidateSpace {
 public:
  // Progress while counting: called now and then with the fraction done, in [0, 1].
  using Progress = std::function<void(double fraction)>;

  // Counts the space now. `environment` resolves names that are not
  // parameters (device limits, problem dimensions); a constraint naming
  // something neither knows is an ExpressionError naming both. The space
  // must outlive this object. Throws std::overflow_error past 2^64 - 1 valid
  // configurations.
  explicit ConstrainedSpace(const SearchSpace& space, const Lookup& environment = {}, const Progress& progress = {});
  ~ConstrainedSpace() override;
  ConstrainedSpace(ConstrainedSpace&&) noexcept;
  ConstrainedSpace& operator=(ConstrainedSpace&&) noexcept;

  std::uint64_t size() const override;
  Config at(std::uint64_t index) const override;
  std::optional<std::uint64_t> index_of(const Config& config) const override;
  std::size_t dimensions() const override;
  std::uint32_t extent(std::size_t parameter) const override;
  void coordinates(std::uint64_t index, std::span<std::uint32_t> out) const override;
  std::optional<std::uint64_t> find(std::span<const std::uint32_t> coordinates) const override;

  // Calls `visit` with each valid configuration's index and configuration in
  // index order, from `first`, until it returns false.
  void for_each(const std::function<bool(std::uint64_t index, const Config& config)>& visit, std::uint64_t first = 0) const;

  // Entries the solver remembers, for the docs' memory figures.
  std::size_t memo_entries() const;

 private:
  struct Solver;
  std::unique_ptr<Solver> solver_;
};

// An explicit list of configurations naming the same parameters in the same
// order (a recorded space); index i is list[i]. Throws std::invalid_argument
// naming two configurations whose parameter names differ.
class ListedCandidates final : public CandidateSpace {
 public:
  explicit ListedCandidates(std::vector<Config> configs);

  std::uint64_t size() const override { return configs_.size(); }
  Config at(std::uint64_t index) const override;
  std::optional<std::uint64_t> index_of(const Config& config) const override;
  std::size_t dimensions() const override { return extents_.size(); }
  std::uint32_t extent(std::size_t parameter) const override { return extents_[parameter]; }
  void coordinates(std::uint64_t index, std::span<std::uint32_t> out) const override;
  std::optional<std::uint64_t> find(std::span<const std::uint32_t> coordinates) const override;

  const std::vector<Config>& configs() const { return configs_; }

 private:
  std::vector<Config> configs_;
  std::vector<std::uint32_t> extents_;
  std::vector<std::uint32_t> coordinates_;  // dimensions() per candidate
  std::vector<std::uint64_t> sorted_;       // candidates in lexicographic order of coordinates
};

}  // namespace blocktune
