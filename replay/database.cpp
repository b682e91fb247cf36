// Recorded spaces from the tuning database.
#include <blocktune/recording.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <ranges>
#include <stdexcept>
#include <tuple>

namespace blocktune {

namespace {

bool contains_ignoring_case(std::string_view text, std::string_view part) {
  const auto same = [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  };
  return std::search(text.begin(), text.end(), part.begin(), part.end(), same) != text.end();
}

bool selected(const SessionSummary& session, const SessionSelector& selector) {
  if (!selector.kernel.empty() && session.kernel != selector.kernel) return false;
  if (selector.problem && session.problem != *selector.problem) return false;
  if (selector.device.empty()) return true;
  return (session.device_uuid.size() == selector.device.size() &&
          contains_ignoring_case(session.device_uuid, selector.device)) ||
         contains_ignoring_case(session.device_name, selector.device);
}

Recording to_recording(const StoredSession& session, const std::vector<KernelRecord>& kernels) {
  Recording recording{.kernel = session.summary.kernel,
                      .problem = session.summary.problem.to_string(),
                      .device = session.summary.device_name};
  const auto kernel = std::ranges::find_if(kernels, [&](const KernelRecord& k) {
    return k.name == session.summary.kernel && k.source_hash == session.summary.source_hash;
  });
  if (kernel != kernels.end()) {
    recording.default_config = kernel->default_config;
    recording.predictions_count_work = kernel->counts_work.value_or(true);  // unknown: as before it was stored
  }
  // Flushed and warm times do not compare: a recorded space holds one kind.
  auto timed = session.trials | std::views::filter([](const TrialRecord& t) { return t.outcome == Outcome::ok; });
  recording.l2_flushed = std::ranges::any_of(timed, &TrialRecord::l2_flushed);
  if (recording.l2_flushed && !std::ranges::all_of(timed, &TrialRecord::l2_flushed))
    throw std::runtime_error(fmt::format("{} {} on {}: some of its trials were timed with the L2 flushed and some warm; tune it "
                                         "again to measure them one way",
                                         session.summary.kernel, session.summary.problem.to_string(), session.summary.device_name));
  for (const TrialRecord& trial : session.trials) {
    // Never measured, never compiled: outside the space a strategy searches.
    if (trial.outcome == Outcome::rejected_by_constraint) continue;
    recording.space.configs.push_back(Config::parse(trial.config));
    recording.space.time.push_back(trial.outcome == Outcome::ok ? std::optional(trial.median_ms / 1e3) : std::nullopt);
    recording.space.cost_seconds.push_back(trial.compile_s + trial.verify_s + trial.benchmark_s);
    recording.outcome.emplace_back(to_string(trial.outcome));
    recording.compile_seconds.push_back(trial.compile_s);
    recording.occupancy.push_back(trial.occupancy);
    recording.registers.push_back(trial.registers);
    recording.predicted_seconds.push_back(trial.predicted_ms ? *trial.predicted_ms / 1e3 : std::numeric_limits<double>::quiet_NaN());
    recording.resident_warps.push_back(trial.resident_warps.value_or(-1));
  }
  // Sessions from before the model stored its predictions have none; those
  // from before schema version 8 no resident warps (a launch's grid is not stored).
  if (std::ranges::none_of(recording.predicted_seconds, [](double s) { return std::isfinite(s); })) recording.predicted_seconds.clear();
  if (std::ranges::any_of(recording.resident_warps, [](int warps) { return warps < 0; })) recording.resident_warps.clear();
  separate_start_up(recording);
  start_from_default(recording);
  return recording;
}

}  // namespace

std::vector<Recording> recordings_from_database(const DatabaseContents& contents, const SessionSelector& selector) {
  // Sessions come with a kernel's older source versions first: a later one replaces them.
  using Key = std::tuple<std::string, std::string, std::string>;  // kernel, device uuid, problem
  std::map<Key, std::size_t> position;
  std::vector<const StoredSession*> chosen;
  for (const StoredSession& session : contents.sessions) {
    if (!selected(session.summary, selector)) continue;
    const Key key{session.summary.kernel, session.summary.device_uuid, session.summary.problem.to_string()};
    if (const auto [found, added] = position.emplace(key, chosen.size()); added)
      chosen.push_back(&session);
    else
      chosen[found->second] = &session;
  }

  if (chosen.empty()) {
    std::vector<std::string> stored;
    for (const StoredSession& session : contents.sessions)
      stored.push_back(fmt::format("{} {} on {}", session.summary.kernel, session.summary.problem.to_string(),
                                   session.summary.device_name));
    throw std::runtime_error(fmt::format("no tuning session of kernel {}, problem {}, device {}; the database holds {}",
                                         selector.kernel.empty() ? "any" : selector.kernel,
                                         selector.problem ? selector.problem->to_string() : "any",
                                         selector.device.empty() ? "any" : selector.device,
                                         stored.empty() ? "none" : fmt::format("{}", fmt::join(stored, "; "))));
  }
  std::vector<Recording> recordings;
  for (const StoredSession* session : chosen) recordings.push_back(to_recording(*session, contents.kernels));
  return recordings;
}

}  // namespace blocktune
