// ConstrainedSpace: counts, ranks and unranks the valid configurations of a
// SearchSpace without listing them.
//
// Parameters that share no constraint fall into separate groups (connected
// components), and the number of valid configurations is the product of the
// groups' counts. Within a group the solver walks the parameters in space
// order and checks each constraint at its last parameter. The completions of
// a prefix depend only on the values of the group's "frontier" there: the
// earlier parameters named by constraints still to be checked. So the count
// of completions is memoised per position, keyed by the frontier's packed
// value indices (dynamic programming over a path decomposition in the space's
// order, the order that lexicographic indices need).
//
// Memory: one 16-byte slot (at most half full) per distinct frontier
// combination reached at each position but a group's last, whose counts are
// recomputed from its values when needed. It grows with those combinations,
// which is small where constraints link few parameters at a time, never with
// the number of valid configurations; memo_entries() reports it.
//
// Unranking walks the parameters in space order; for each value in listed
// order, the configurations under it number (its group's completions) x (the
// other groups' completions of their current prefixes), and the walk descends
// into the value whose range holds the index. Ranking sums the same counts
// over the smaller siblings. Both visit at most every value of every
// parameter once, and read the memo only: the const members are safe to call
// from several threads.

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "blocktune/candidates.hpp"

namespace blocktune {

namespace {

constexpr std::size_t kEnvironment = static_cast<std::size_t>(-1);

// Counts by 64-bit key (at most 2^64 - 2), open addressing with linear probing.
class CountTable {
 public:
  const std::uint64_t* find(std::uint64_t key) const {
    if (slots_.empty()) return nullptr;
    for (std::size_t slot = home(key);; slot = (slot + 1) & (slots_.size() - 1)) {
      if (slots_[slot].key_plus_one == key + 1) return &slots_[slot].count;
      if (slots_[slot].key_plus_one == 0) return nullptr;
    }
  }

  // `key` must not be in the table yet.
  void insert(std::uint64_t key, std::uint64_t count) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    place(key, count);
    ++size_;
  }

  std::size_t size() const { return size_; }

 private:
  struct Slot {
    std::uint64_t key_plus_one = 0;  // 0: empty
    std::uint64_t count = 0;
  };

  std::size_t home(std::uint64_t key) const {
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ULL) >> shift_);  // Fibonacci hashing
  }

  void place(std::uint64_t key, std::uint64_t count) {
    std::size_t slot = home(key);
    while (slots_[slot].key_plus_one != 0) slot = (slot + 1) & (slots_.size() - 1);
    slots_[slot] = {key + 1, count};
  }

  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(std::max<std::size_t>(16, 2 * old.size()), Slot{});
    shift_ = 64 - std::countr_zero(slots_.size());
    for (const Slot& slot : old)
      if (slot.key_plus_one != 0) place(slot.key_plus_one - 1, slot.count);
  }

  std::vector<Slot> slots_;  // a power of two
  int shift_ = 64;
  std::size_t size_ = 0;
};

// A constraint with each variable resolved to a parameter or to an environment value.
struct BoundConstraint {
  Expression expression;
  std::vector<std::size_t> parameter_of_variable;  // kEnvironment where the environment supplies it
  std::vector<Value> environment_values;           // by variable; unused for parameters
};

// The state of one walk over the parameters; each call has its own, so that
// the const members share nothing mutable.
struct Walk {
  std::vector<std::uint32_t> choice;   // by parameter: the index of its value in the listed values
  std::vector<const Value*> bindings;  // scratch for evaluating one constraint
};

}  // namespace

struct ConstrainedSpace::Solver {
  // One parameter of a group, in the group's (= the space's) order.
  struct Position {
    std::size_t parameter = 0;
    std::vector<std::size_t> constraints;  // checked here: this is the last parameter they name
    std::vector<std::size_t> frontier;     // earlier parameters the later constraints name
    std::vector<std::uint64_t> strides;    // by frontier entry: mixed-radix weights of its value index
    CountTable memo;                       // completions from here, by frontier key; unused at the last position

    std::uint64_t key(const Walk& walk) const {
      std::uint64_t key = 0;
      for (std::size_t i = 0; i < frontier.size(); ++i) key += walk.choice[frontier[i]] * strides[i];
      return key;
    }
  };

  struct Group {
    std::vector<Position> positions;
    std::uint64_t total = 0;  // its valid combinations
    double weight = 0;        // log2 of its raw size, for progress
  };

  const SearchSpace* space;
  std::vector<BoundConstraint> constraints;  // those naming a parameter
  bool environment_satisfied = true;
  std::vector<Group> groups;
  std::vector<std::size_t> group_of;     // by parameter
  std::vector<std::size_t> position_of;  // by parameter: its position in its group
  std::vector<std::vector<std::uint32_t>> value_of_coordinate;  // by parameter: the value index of each rank
  std::vector<std::vector<std::uint32_t>> coordinate_of_value;  // by parameter: the rank of each value index
  std::uint64_t size = 0;

  // Progress while counting.
  Progress progress;
  std::chrono::steady_clock::time_point last_report;
  double weight_done = 0, weight_total = 0;
  std::size_t visits = 0;

  Solver(const SearchSpace& searched, const Lookup& environment, const Progress& report)
      : space(&searched), progress(report), last_report(std::chrono::steady_clock::now()) {
    for (const Expression& constraint : space->constraints()) bind(constraint, environment);
    rank_values();
    form_groups();
    if (environment_satisfied) count_all();
    if (progress) progress(1.0);
  }

  const std::vector<Parameter>& parameters() const { return space->parameters(); }
  std::uint32_t extent(std::size_t parameter) const {
    return static_cast<std::uint32_t>(parameters()[parameter].values.size());
  }

  Walk start_walk() const {
    std::size_t most_variables = 0;
    for (const BoundConstraint& constraint : constraints)
      most_variables = std::max(most_variables, constraint.parameter_of_variable.size());
    return Walk{std::vector<std::uint32_t>(parameters().size(), 0), std::vector<const Value*>(most_variables)};
  }

  // ---- Setting up ----

  void bind(const Expression& constraint, const Lookup& environment) {
    const auto& parameters = space->parameters();
    BoundConstraint bound{constraint, {}, {}};
    const auto& variables = constraint.variables();
    bound.environment_values.resize(variables.size());
    for (std::size_t i = 0; i < variables.size(); ++i) {
      const auto parameter = std::find_if(parameters.begin(), parameters.end(),
                                          [&](const Parameter& p) { return p.name == variables[i]; });
      if (parameter != parameters.end()) {
        bound.parameter_of_variable.push_back(static_cast<std::size_t>(parameter - parameters.begin()));
        continue;
      }
      std::optional<Value> value = environment ? environment(variables[i]) : std::nullopt;
      if (!value)
        throw ExpressionError(fmt::format("constraint '{}' names '{}', which is neither a parameter nor in the environment",
                                          constraint.text(), variables[i]));
      bound.parameter_of_variable.push_back(kEnvironment);
      bound.environment_values[i] = std::move(*value);
    }
    const bool environment_only = std::all_of(bound.parameter_of_variable.begin(), bound.parameter_of_variable.end(),
                                              [](std::size_t parameter) { return parameter == kEnvironment; });
    if (!environment_only) {
      constraints.push_back(std::move(bound));
    } else if (environment_satisfied) {  // decided once, here
      std::vector<const Value*> bindings;
      for (const Value& value : bound.environment_values) bindings.push_back(&value);
      environment_satisfied = constraint.evaluate_bool_bound(bindings);
    }
  }

  // Coordinates: per parameter, the rank of each value among its values,
  // integers ascending before strings (std::variant's order).
  void rank_values() {
    for (const Parameter& parameter : parameters()) {
      std::vector<std::uint32_t> order(parameter.values.size());
      std::iota(order.begin(), order.end(), 0U);
      std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        return parameter.values[a] < parameter.values[b];
      });
      std::vector<std::uint32_t> rank(order.size());
      for (std::uint32_t r = 0; r < order.size(); ++r) rank[order[r]] = r;
      value_of_coordinate.push_back(std::move(order));
      coordinate_of_value.push_back(std::move(rank));
    }
  }

  void form_groups() {
    const std::size_t n = parameters().size();
    // Union-find over parameters: every constraint joins the parameters it names.
    std::vector<std::size_t> root(n);
    std::iota(root.begin(), root.end(), std::size_t{0});
    const auto find = [&](std::size_t p) {
      while (root[p] != p) p = root[p] = root[root[p]];
      return p;
    };
    for (const BoundConstraint& constraint : constraints) {
      std::size_t first = kEnvironment;
      for (const std::size_t parameter : constraint.parameter_of_variable) {
        if (parameter == kEnvironment) continue;
        if (first == kEnvironment) first = find(parameter);
        else root[find(parameter)] = first;
      }
    }

    std::vector<std::size_t> group_of_root(n, kEnvironment);
    group_of.resize(n);
    position_of.resize(n);
    for (std::size_t p = 0; p < n; ++p) {
      std::size_t& group = group_of_root[find(p)];
      if (group == kEnvironment) {
        group = groups.size();
        groups.emplace_back();
      }
      group_of[p] = group;
      position_of[p] = groups[group].positions.size();
      groups[group].positions.emplace_back().parameter = p;
      groups[group].weight += std::log2(static_cast<double>(extent(p)));
    }
    for (const Group& group : groups) weight_total += group.weight;

    // Each constraint is checked at its last parameter; until then, its
    // earlier parameters are on the frontier.
    std::vector<std::vector<bool>> on_frontier(n);  // by parameter, by position of its group
    for (std::size_t p = 0; p < n; ++p) on_frontier[p].assign(groups[group_of[p]].positions.size(), false);
    for (std::size_t c = 0; c < constraints.size(); ++c) {
      std::size_t last = 0, group = 0;
      for (const std::size_t parameter : constraints[c].parameter_of_variable) {
        if (parameter == kEnvironment) continue;
        last = std::max(last, position_of[parameter]);
        group = group_of[parameter];
      }
      groups[group].positions[last].constraints.push_back(c);
      for (const std::size_t parameter : constraints[c].parameter_of_variable)
        if (parameter != kEnvironment)
          for (std::size_t k = position_of[parameter] + 1; k <= last; ++k) on_frontier[parameter][k] = true;
    }
    for (Group& group : groups)
      for (std::size_t k = 0; k < group.positions.size(); ++k) {
        Position& at = group.positions[k];
        std::uint64_t stride = 1;
        for (std::size_t j = 0; j < k; ++j) {
          const std::size_t parameter = group.positions[j].parameter;
          if (!on_frontier[parameter][k]) continue;
          at.frontier.push_back(parameter);
          at.strides.push_back(stride);
          // Keys stay below 2^64 - 1, which the table keeps free.
          if (__builtin_mul_overflow(stride, std::uint64_t{extent(parameter)}, &stride) ||
              stride == std::numeric_limits<std::uint64_t>::max())
            throw std::length_error(fmt::format(
                "the constraints link too many parameters at once: at '{}', the values of {} earlier parameters "
                "would have to be remembered together, more than 2^64 combinations",
                parameters()[at.parameter].name, at.frontier.size()));
        }
      }
  }

  // ---- Counting ----

  void count_all() {
    Walk walk = start_walk();
    size = 1;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      Group& group = groups[g];
      group.total = count(group, 0, walk);
      weight_done += group.weight;
      if (__builtin_mul_overflow(size, group.total, &size)) overflow();
      if (group.total == 0) return;  // nothing is valid: the other groups need not be solved
    }
  }

  // The valid completions of the walk's prefix from position k of `group` on.
  std::uint64_t count(Group& group, std::size_t k, Walk& walk) {
    if (k == group.positions.size()) return 1;
    Position& at = group.positions[k];
    if (k + 1 == group.positions.size()) return count_last(at, walk);
    const std::uint64_t key = at.key(walk);
    if (const std::uint64_t* known = at.memo.find(key)) return *known;
    if (progress && ++visits % 1024 == 0) report(group, walk);

    std::uint64_t total = 0;
    for (std::uint32_t v = 0; v < extent(at.parameter); ++v) {
      walk.choice[at.parameter] = v;
      if (passes(at, walk) && __builtin_add_overflow(total, count(group, k + 1, walk), &total)) overflow();
    }
    at.memo.insert(key, total);
    return total;
  }

  std::uint64_t count_last(const Position& at, Walk& walk) const {
    std::uint64_t valid = 0;
    for (std::uint32_t v = 0; v < extent(at.parameter); ++v) {
      walk.choice[at.parameter] = v;
      valid += passes(at, walk) ? 1 : 0;
    }
    return valid;
  }

  // The memoised count(): every prefix a valid walk reaches was counted.
  std::uint64_t completions(const Group& group, std::size_t k, Walk& walk) const {
    if (k == group.positions.size()) return 1;
    const Position& at = group.positions[k];
    if (k + 1 == group.positions.size()) return count_last(at, walk);
    const std::uint64_t* known = at.memo.find(at.key(walk));
    if (known == nullptr) throw std::logic_error("ConstrainedSpace: a reachable prefix was not counted");
    return *known;
  }

  [[noreturn]] void overflow() const {
    throw std::overflow_error(fmt::format(
        "the search space has more than 2^64 - 1 = {} valid configurations (raw size {:.3g}): too many to index",
        std::numeric_limits<std::uint64_t>::max(), space->raw_size()));
  }

  // The fraction done: the groups counted, and within this one the
  // lexicographic position of the walk's prefix in the raw product.
  void report(const Group& group, const Walk& walk) {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_report < std::chrono::milliseconds(250)) return;
    last_report = now;
    double within = 0, scale = 1;
    for (const Position& at : group.positions) {
      scale /= extent(at.parameter);
      within += walk.choice[at.parameter] * scale;
    }
    const double done = weight_total > 0 ? (weight_done + group.weight * within) / weight_total : 0;
    progress(std::clamp(done, 0.0, 1.0));
  }

  // ---- Constraints ----

  bool passes(const Position& at, Walk& walk) const {
    return std::all_of(at.constraints.begin(), at.constraints.end(),
                       [&](std::size_t c) { return satisfied(constraints[c], walk); });
  }

  bool satisfied(const BoundConstraint& constraint, Walk& walk) const {
    const std::size_t variables = constraint.parameter_of_variable.size();
    for (std::size_t i = 0; i < variables; ++i) {
      const std::size_t parameter = constraint.parameter_of_variable[i];
      walk.bindings[i] = parameter == kEnvironment ? &constraint.environment_values[i]
                                                   : &parameters()[parameter].values[walk.choice[parameter]];
    }
    const std::span<const Value* const> bindings(walk.bindings.data(), variables);
    try {
      return constraint.expression.evaluate_bool_bound(bindings);
    } catch (const ExpressionError& error) {
      std::string values;
      for (std::size_t i = 0; i < variables; ++i) {
        if (constraint.parameter_of_variable[i] == kEnvironment) continue;
        if (!values.empty()) values += ", ";
        values += fmt::format("{}={}", constraint.expression.variables()[i], to_string(*bindings[i]));
      }
      throw ExpressionError(fmt::format("{} (with {})", error.what(), values));
    }
  }

  // ---- Indices ----

  std::vector<std::uint64_t> totals() const {
    std::vector<std::uint64_t> counts;
    for (const Group& group : groups) counts.push_back(group.total);
    return counts;
  }

  // The value indices of the configuration at `index` < size.
  std::vector<std::uint32_t> unrank(std::uint64_t index) const {
    Walk walk = start_walk();
    std::vector<std::uint64_t> remaining = totals();  // by group: completions of its prefix
    std::uint64_t completions_here = size;  // the product of remaining
    for (std::size_t p = 0; p < parameters().size(); ++p) {
      const Group& group = groups[group_of[p]];
      const std::size_t k = position_of[p];
      const std::uint64_t others = completions_here / remaining[group_of[p]];
      for (std::uint32_t v = 0;; ++v) {
        walk.choice[p] = v;
        if (!passes(group.positions[k], walk)) continue;
        const std::uint64_t below = completions(group, k + 1, walk);
        if (index < below * others) {
          remaining[group_of[p]] = below;
          completions_here = below * others;
          break;
        }
        index -= below * others;
      }
      // count_last may have moved later choices; they are set on the way down.
    }
    return std::move(walk.choice);
  }

  // The index of the configuration with these value indices, if it is valid.
  std::optional<std::uint64_t> rank(const std::vector<std::uint32_t>& choice) const {
    if (size == 0) return std::nullopt;
    Walk walk = start_walk();
    std::vector<std::uint64_t> remaining = totals();
    std::uint64_t completions_here = size, index = 0;
    for (std::size_t p = 0; p < parameters().size(); ++p) {
      const Group& group = groups[group_of[p]];
      const std::size_t k = position_of[p];
      const std::uint64_t others = completions_here / remaining[group_of[p]];
      // The chosen value first: a prefix that is not valid has no counted siblings.
      walk.choice[p] = choice[p];
      if (!passes(group.positions[k], walk)) return std::nullopt;
      const std::uint64_t below = completions(group, k + 1, walk);
      if (below == 0) return std::nullopt;
      for (std::uint32_t v = 0; v < choice[p]; ++v) {
        walk.choice[p] = v;
        if (passes(group.positions[k], walk)) index += completions(group, k + 1, walk) * others;
      }
      walk.choice[p] = choice[p];
      remaining[group_of[p]] = below;
      completions_here = below * others;
    }
    return index;
  }

  Config make_config(const std::vector<std::uint32_t>& choice) const {
    std::vector<std::pair<std::string, Value>> entries;
    entries.reserve(choice.size());
    for (std::size_t p = 0; p < choice.size(); ++p)
      entries.emplace_back(parameters()[p].name, parameters()[p].values[choice[p]]);
    return Config(std::move(entries));
  }

  // Visits the valid configurations from parameter p on under the walk's
  // prefix, from `first` (value indices) while `resume` holds: for_each's start.
  bool visit_from(std::size_t p, bool resume, const std::vector<std::uint32_t>& first, Walk& walk, std::uint64_t& index,
                  const std::function<bool(std::uint64_t, const Config&)>& visit) const {
    if (p == parameters().size()) return visit(index++, make_config(walk.choice));
    const Group& group = groups[group_of[p]];
    const std::size_t k = position_of[p];
    // Values with no completions are skipped, except where the next parameter
    // is the group's last: trying its values there costs what counting them would.
    const bool next_is_last = k + 2 == group.positions.size() && group.positions[k + 1].parameter == p + 1;
    for (std::uint32_t v = resume ? first[p] : 0; v < extent(p); ++v) {
      walk.choice[p] = v;
      if (!passes(group.positions[k], walk) || (!next_is_last && completions(group, k + 1, walk) == 0)) continue;
      if (!visit_from(p + 1, resume && v == first[p], first, walk, index, visit)) return false;
    }
    return true;
  }

  std::optional<std::uint32_t> value_index(std::size_t parameter, const Value& value) const {
    const auto& values = parameters()[parameter].values;
    const auto& order = value_of_coordinate[parameter];
    const auto at = std::lower_bound(order.begin(), order.end(), value,
                                     [&](std::uint32_t v, const Value& wanted) { return values[v] < wanted; });
    if (at == order.end() || values[*at] != value) return std::nullopt;
    return *at;
  }
};

ConstrainedSpace::ConstrainedSpace(const SearchSpace& space, const Lookup& environment, const Progress& progress)
    : solver_(std::make_unique<Solver>(space, environment, progress)) {}

ConstrainedSpace::~ConstrainedSpace() = default;
ConstrainedSpace::ConstrainedSpace(ConstrainedSpace&&) noexcept = default;
ConstrainedSpace& ConstrainedSpace::operator=(ConstrainedSpace&&) noexcept = default;

std::uint64_t ConstrainedSpace::size() const { return solver_->size; }

Config ConstrainedSpace::at(std::uint64_t index) const {
  if (index >= size())
    throw std::out_of_range(fmt::format("candidate {} is past the end of the {} valid configurations", index, size()));
  return solver_->make_config(solver_->unrank(index));
}

std::optional<std::uint64_t> ConstrainedSpace::index_of(const Config& config) const {
  const auto& parameters = solver_->parameters();
  if (config.entries().size() != parameters.size()) return std::nullopt;
  std::vector<std::uint32_t> choice(parameters.size());
  for (std::size_t p = 0; p < parameters.size(); ++p) {
    const Value* value = config.find(parameters[p].name);
    const auto index = value ? solver_->value_index(p, *value) : std::nullopt;
    if (!index) return std::nullopt;
    choice[p] = *index;
  }
  return solver_->rank(choice);
}

std::size_t ConstrainedSpace::dimensions() const { return solver_->parameters().size(); }

std::uint32_t ConstrainedSpace::extent(std::size_t parameter) const { return solver_->extent(parameter); }

void ConstrainedSpace::coordinates(std::uint64_t index, std::span<std::uint32_t> out) const {
  if (index >= size())
    throw std::out_of_range(fmt::format("candidate {} is past the end of the {} valid configurations", index, size()));
  const std::vector<std::uint32_t> choice = solver_->unrank(index);
  for (std::size_t p = 0; p < choice.size(); ++p) out[p] = solver_->coordinate_of_value[p][choice[p]];
}

std::optional<std::uint64_t> ConstrainedSpace::find(std::span<const std::uint32_t> coordinates) const {
  if (coordinates.size() != dimensions()) return std::nullopt;
  std::vector<std::uint32_t> choice(coordinates.size());
  for (std::size_t p = 0; p < coordinates.size(); ++p) {
    if (coordinates[p] >= extent(p)) return std::nullopt;
    choice[p] = solver_->value_of_coordinate[p][coordinates[p]];
  }
  return solver_->rank(choice);
}

void ConstrainedSpace::for_each(const std::function<bool(std::uint64_t index, const Config& config)>& visit,
                                std::uint64_t first) const {
  if (first >= size()) return;
  Walk walk = solver_->start_walk();
  const std::vector<std::uint32_t> start = solver_->unrank(first);
  solver_->visit_from(0, true, start, walk, first, visit);
}

std::size_t ConstrainedSpace::memo_entries() const {
  std::size_t entries = 0;
  for (const auto& group : solver_->groups)
    for (const auto& position : group.positions) entries += position.memo.size();
  return entries;
}

}  // namespace blocktune
