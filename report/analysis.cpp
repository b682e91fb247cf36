#include "analysis.hpp"

#include <blocktune/detail/model.hpp>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <ctime>
#include <map>
#include <set>

namespace blocktune::report {
namespace {

// Configurations within this share of the winner's time count as close to it.
constexpr double close_margin = 0.02;

std::string lower(std::string_view text) {
  std::string out(text);
  std::ranges::transform(out, out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// A uuid, or part of the name, ignoring case.
bool matches(const DeviceRecord& device, std::string_view selector) {
  const std::string wanted = lower(selector);
  return lower(device.uuid) == wanted || lower(device.name).find(wanted) != std::string::npos;
}

std::string list(const std::set<std::string>& items) { return fmt::format("{}", fmt::join(items, ", ")); }

std::string ordinal(std::size_t n) {
  std::string_view suffix = "th";  // 11th, 12th, 13th, 111th...
  if (n % 100 < 11 || n % 100 > 13) {
    if (n % 10 == 1) suffix = "st";
    if (n % 10 == 2) suffix = "nd";
    if (n % 10 == 3) suffix = "rd";
  }
  return fmt::format("{}{}", n, suffix);
}

// "63%", "2%", "0.35%": whole percent from 10% up, two significant digits below.
std::string percent(double share) {
  const double value = 100 * share;
  if (value >= 10) return fmt::format("{:.0f}%", value);
  if (value < 0.01) return "less than 0.01%";
  return fmt::format("{:.2g}%", value);
}

std::string bytes(int count) {
  return count % 1024 == 0 && count > 0 ? fmt::format("{} KiB", count / 1024) : fmt::format("{} bytes", count);
}

std::string outcome_words(Outcome outcome) {
  switch (outcome) {
    case Outcome::ok:
      return "ran correctly";
    case Outcome::compile_error:
      return "failed to compile";
    case Outcome::launch_error:
      return "failed to launch";
    case Outcome::runtime_fault:
      return "faulted while running";
    case Outcome::timeout:
      return "timed out";
    case Outcome::wrong_result:
      return "computed a wrong result";
    case Outcome::rejected_by_constraint:
      return "was rejected by a constraint";
    case Outcome::pruned_by_occupancy:
      return "cannot launch on this GPU (occupancy)";
    case Outcome::compile_timeout:
      return "did not compile in time";
  }
  return "unknown outcome";
}

// "carveout=-1, strategy=BASE": the parameters of `other` whose values differ from `base`.
std::string differences(const TrialRecord& base, const TrialRecord& other) {
  const Parameters mine = parse_config_text(base.config);
  std::vector<std::string> changed;
  for (const ConfigEntry& parameter : parse_config_text(other.config))
    if (std::ranges::find(mine, parameter) == mine.end()) changed.push_back(format_config_text({&parameter, 1}));
  return fmt::format("{}", fmt::join(changed, ", "));
}

std::string words_list(const std::vector<std::string>& items) {
  if (items.size() <= 1) return items.empty() ? "" : items.front();
  return fmt::format("{} and {}", fmt::join(items.begin(), items.end() - 1, ", "), items.back());
}

// Text broken at spaces into lines of at most text_width columns (a longer
// word keeps its own line), continued at `indent` columns; ends with a newline.
std::string wrap(std::string_view text, std::size_t indent) {
  constexpr std::size_t text_width = 110;
  std::string out;
  std::size_t column = indent;
  while (!text.empty()) {
    const std::string_view word = text.substr(0, text.find(' '));
    text.remove_prefix(std::min(text.size(), word.size() + 1));
    if (column > indent && column + 1 + word.size() > text_width) {
      out += '\n';
      out.append(indent, ' ');
      column = indent;
    } else if (column > indent) {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
  }
  return out + '\n';
}

std::string stability(double spread) {
  if (spread < 0.01) return "very stable";
  if (spread < 0.03) return "stable";
  if (spread < 0.10) return "noisy";
  return "very noisy";
}

std::string occupancy_fact(const TrialRecord& t) {
  if (t.occupancy <= 0 || t.blocks_per_sm <= 0) return "not known";
  const int warps_per_block = (t.shape.threads() + 31) / 32;
  const int active = t.blocks_per_sm * warps_per_block;
  const auto max_warps = std::lround(active / t.occupancy);
  std::string text = fmt::format("{}: {} blocks of {} warps = {} of {} warps per SM", percent(t.occupancy),
                                 t.blocks_per_sm, warps_per_block, active, max_warps);
  if (!t.limiting_factor.empty() && t.limiting_factor != "none") text += ", limited by " + t.limiting_factor;
  return text;
}

std::string resources_fact(const TrialRecord& t) {
  const int shared = t.static_smem + t.dynamic_smem;
  std::string text = fmt::format("{} registers per thread, {}", t.registers,
                                 shared == 0 ? "no shared memory" : bytes(shared) + " shared memory per block");
  if (t.spill_stores + t.spill_loads == 0)
    text += ", no spills";
  else
    text += fmt::format(", spills: {} stored and {} loaded", bytes(t.spill_stores), bytes(t.spill_loads));
  if (t.local_bytes > 0) text += fmt::format(", {} of local memory per thread", bytes(t.local_bytes));
  return text;
}

std::string launch_fact(const TrialRecord& t) {
  const int threads = t.shape.threads();
  return fmt::format("block {} ({} threads), {}", block_text(t.shape), threads,
                     t.shape.carveout == LaunchShape::driver_default_carveout
                         ? "the driver's default carveout"
                         : fmt::format("carveout {}% (the shared-memory share of L1)", t.shape.carveout));
}

// The configurations within close_margin of the winner, and what they share.
std::string close_group_verdict(const Session& session, const TrialRecord& winner) {
  std::vector<const TrialRecord*> close;
  for (const TrialRecord* t : session.ranked)
    if (t->median_ms <= winner.median_ms * (1 + close_margin)) close.push_back(t);
  if (close.size() < 2)
    return fmt::format("No other configuration comes within {} of its time.", percent(close_margin));

  std::vector<Parameters> close_parameters;
  for (const TrialRecord* t : close) close_parameters.push_back(parse_config_text(t->config));
  std::vector<std::string> shared, varying;
  for (const ConfigEntry& parameter : parse_config_text(winner.config)) {
    const bool all_same = std::ranges::all_of(close_parameters, [&](const Parameters& parameters) {
      return std::ranges::find(parameters, parameter) != parameters.end();
    });
    if (all_same)
      shared.push_back(format_config_text({&parameter, 1}));
    else
      varying.push_back(parameter.name);
  }
  std::string text = fmt::format("The {} configurations within {} of its time", close.size(), percent(close_margin));
  if (shared.empty()) return text + " have no parameter value in common: the space is flat near the top.";
  text += fmt::format(" all use {}", words_list(shared));
  if (!varying.empty())
    text += fmt::format("; {} {} among them", words_list(varying), varying.size() == 1 ? "varies" : "vary");
  return text + ".";
}

std::optional<ModelAgreement> model_agreement(const Session& session) {
  std::vector<double> predicted, measured;
  for (const TrialRecord* t : session.ranked)
    if (t->predicted_ms) {
      predicted.push_back(*t->predicted_ms);
      measured.push_back(t->median_ms);
    }
  if (predicted.size() < 2) return std::nullopt;
  ModelAgreement agreement{predicted.size(), spearman(predicted, measured), nullptr};
  for (const TrialRecord& t : session.trials())
    if (t.predicted_ms && (!agreement.top_pick || *t.predicted_ms < *agreement.top_pick->predicted_ms))
      agreement.top_pick = &t;
  return agreement;
}

std::string model_fact(const Session& session, const ModelAgreement& model) {
  const TrialRecord& pick = *model.top_pick;
  const std::string where = pick.outcome == Outcome::ok
                                ? fmt::format("ranked {} of {} measured", ordinal(session.rank(pick)), session.ranked.size())
                                : outcome_words(pick.outcome);
  return fmt::format(
      "Spearman rank correlation {:.2f} between predicted and measured time over {} timed configurations; its "
      "fastest prediction, {}, {}",
      model.spearman, model.trials, pick.config, where);
}

std::string occupancy_verdict(const Session& session, const TrialRecord& winner) {
  const TrialRecord* fullest = nullptr;  // the fastest of the highest occupancy
  for (const TrialRecord* t : session.ranked)
    if (!fullest || t->occupancy > fullest->occupancy) fullest = t;
  if (!fullest || fullest->occupancy <= winner.occupancy)
    return fmt::format("It has the highest occupancy measured ({}).", percent(winner.occupancy));
  return fmt::format(
      "More occupancy does not buy speed here: the fastest configuration with {} occupancy ({}) takes {} longer.",
      percent(fullest->occupancy), fullest->config, percent(fullest->median_ms / winner.median_ms - 1));
}

std::string winner_verdict(const Session& session, const TrialRecord& winner) {
  std::vector<std::string> sentences;
  if (const TrialRecord* fallback = session.default_trial();
      fallback && fallback->outcome == Outcome::ok && fallback != &winner)
    sentences.push_back(fmt::format("It is {:.2f}x as fast as the kernel's default configuration.",
                                    fallback->median_ms / winner.median_ms));
  if (const auto share = session.bandwidth_share(winner))
    sentences.push_back(
        fmt::format("It moves data at {} of the rate of a plain device-to-device copy.", percent(*share)));
  if (session.ranked.size() > 1) {
    const double lead = session.ranked[1]->median_ms / winner.median_ms - 1;
    if (lead < winner.spread)
      sentences.push_back(fmt::format(
          "Its lead over the runner-up ({}) is smaller than its own timing spread ({}): the two are tied within "
          "measurement noise.",
          percent(lead), percent(winner.spread)));
    else
      sentences.push_back(fmt::format("Its lead over the runner-up ({}) is larger than its timing spread ({}).",
                                      percent(lead), percent(winner.spread)));
  }
  sentences.push_back(close_group_verdict(session, winner));
  sentences.push_back(occupancy_verdict(session, winner));
  return fmt::format("{}", fmt::join(sentences, " "));
}

// How the trials a session ranks were timed: as its stored winner was (the
// store chooses a winner among one kind of time), else as its latest ok
// trial was (a session with no winner stored yet).
bool ranked_timing(const StoredSession& session) {
  const auto& trials = session.trials;
  if (const auto& winner = session.summary.winner) {
    const auto found = std::ranges::find_if(trials, [&](const TrialRecord& t) {
      return t.outcome == Outcome::ok && t.config == winner->config && t.median_ms == winner->median_ms;
    });
    if (found != trials.end()) return found->l2_flushed;
  }
  const auto latest = std::ranges::find_if(trials.rbegin(), trials.rend(), [](const TrialRecord& t) { return t.outcome == Outcome::ok; });
  return latest == trials.rend() || latest->l2_flushed;
}

std::string l2_words(bool flushed) { return flushed ? "the L2 flushed before each run" : "the L2 warm"; }

std::size_t total(const std::map<Outcome, std::size_t>& counts) {
  std::size_t sum = 0;
  for (const auto& [outcome, count] : counts) sum += count;
  return sum;
}

// "4533 ok, 3 wrong_result"
std::string by_outcome(const std::map<Outcome, std::size_t>& counts) {
  std::vector<std::string> parts;
  for (const auto& [outcome, count] : counts) parts.push_back(fmt::format("{} {}", count, to_string(outcome)));
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace

bool faster(const TrialRecord& a, const TrialRecord& b) {
  return std::tie(a.median_ms, a.min_ms, a.config) < std::tie(b.median_ms, b.min_ms, b.config);
}

double Measure::of(const TrialRecord& trial) const { return unit == "ms" ? trial.median_ms : trial.metric; }

std::string Measure::format(double value) const {
  return unit == "ms" ? fmt::format("{:.4g} ms", value) : fmt::format("{:.0f} {}", value, unit);
}

const TrialRecord* Session::find(std::string_view config) const {
  for (const auto& trial : trials())
    if (trial.config == config) return &trial;
  return nullptr;
}

const TrialRecord* Session::default_trial() const {
  return kernel->default_config.empty() ? nullptr : find(kernel->default_config);
}

std::size_t Session::rank(const TrialRecord& trial) const {
  const auto found = std::ranges::find(ranked, &trial);
  return found == ranked.end() ? 0 : static_cast<std::size_t>(found - ranked.begin()) + 1;
}

std::string Session::strategy(const TrialRecord& trial) const {
  Parameters values = parse_config_text(trial.config);
  std::erase_if(values, [&](const ConfigEntry& value) {
    return std::ranges::find(strategy_parameters, value.name) == strategy_parameters.end();
  });
  return format_config_text(values);
}

std::vector<std::string> Session::strategies() const {
  std::set<std::string> names;
  for (const TrialRecord* t : ranked) names.insert(strategy(*t));
  return {names.begin(), names.end()};
}

std::vector<const TrialRecord*> Session::best_per_strategy() const {
  std::vector<const TrialRecord*> best;
  for (const auto& name : strategies())
    best.push_back(*std::ranges::find_if(ranked, [&](const TrialRecord* t) { return strategy(*t) == name; }));
  return best;
}

std::vector<const TrialRecord*> Session::best_per_fusion_depth() const {
  std::map<std::int64_t, const TrialRecord*> best;
  for (const TrialRecord* t : ranked) best.try_emplace(t->steps_per_launch, t);  // ranked: fastest first
  if (best.size() < 2 && (best.empty() || best.begin()->first == 1)) return {};
  std::vector<const TrialRecord*> rows;
  for (const auto& [steps, trial] : best) rows.push_back(trial);
  return rows;
}

std::optional<double> Session::bandwidth_share(const TrialRecord& trial) const {
  if (!copy_bandwidth || copy_bandwidth->value <= 0 || trial.metric_unit != "GB/s" || trial.outcome != Outcome::ok)
    return std::nullopt;
  return trial.metric / copy_bandwidth->value;
}

std::string Session::title() const {
  return fmt::format("{} {} on {}", kernel->name, problem().to_string(), device->name);
}

std::string Session::timing_note() const {
  if (timed_other_way == 0) return {};
  return fmt::format(
      "{} configuration{} timed with {} {} left out of the ranking, which is of times with {}: the two do not compare "
      "(`blocktune tune` measures {} again when it runs that way).",
      timed_other_way, timed_other_way == 1 ? "" : "s", l2_words(!l2_flushed), timed_other_way == 1 ? "is" : "are",
      l2_words(l2_flushed), timed_other_way == 1 ? "it" : "them");
}

bool Session::has_predictions() const {
  return std::ranges::any_of(trials(), [](const TrialRecord& t) { return t.predicted_ms.has_value(); });
}

std::vector<Session> select_sessions(const DatabaseContents& contents, const ReportFilter& filter) {
  if (contents.sessions.empty()) throw ReportError("the database holds no tuning results yet (run `blocktune tune`)");

  std::set<std::string> kernel_names;
  for (const auto& s : contents.sessions) kernel_names.insert(s.summary.kernel);
  if (!filter.kernel.empty() && !kernel_names.contains(filter.kernel))
    throw ReportError(fmt::format("no results for kernel '{}' (tuned kernels: {})", filter.kernel, list(kernel_names)));

  for (const auto& selector : filter.devices) {
    if (std::ranges::none_of(contents.devices, [&](const DeviceRecord& d) { return matches(d, selector); })) {
      std::set<std::string> devices;
      for (const auto& d : contents.devices) devices.insert(d.name + " " + d.uuid);
      throw ReportError(fmt::format("no device matches '{}' (devices: {})", selector, list(devices)));
    }
  }

  std::vector<Session> selected;
  std::set<std::string> tuned_on, tuned_for;  // for the message when nothing is left
  for (const auto& stored : contents.sessions) {
    const SessionSummary& summary = stored.summary;
    if (!filter.kernel.empty() && summary.kernel != filter.kernel) continue;
    const auto device = std::ranges::find(contents.devices, summary.device_uuid, &DeviceRecord::uuid);
    const auto kernel = std::ranges::find_if(contents.kernels, [&](const KernelRecord& k) {
      return k.name == summary.kernel && k.source_hash == summary.source_hash;
    });
    if (device == contents.devices.end() || kernel == contents.kernels.end())
      throw ReportError(
          fmt::format("session {} on {} refers to a device or kernel that is not stored: run "
                      "`blocktune db check`",
                      summary.kernel, summary.device_uuid));
    if (!filter.devices.empty() &&
        std::ranges::none_of(filter.devices, [&](const std::string& selector) { return matches(*device, selector); })) {
      tuned_on.insert(device->name);
      continue;
    }
    if (filter.problem && summary.problem.dims != filter.problem->dims) {  // measurements serve every step count
      tuned_for.insert(summary.problem.to_string());
      continue;
    }
    Session& session = selected.emplace_back();
    session.stored = &stored;
    session.device = &*device;
    session.kernel = &*kernel;
    if (const auto metrics = contents.device_metrics.find(device->uuid); metrics != contents.device_metrics.end())
      for (const auto& metric : metrics->second)
        if (metric.name == copy_bandwidth_metric) session.copy_bandwidth = metric;
  }
  const std::string nothing =
      filter.kernel.empty() ? "no kernel was" : fmt::format("kernel '{}' was not", filter.kernel);
  if (selected.empty() && !tuned_for.empty())  // on the devices asked for, but for other sizes
    throw ReportError(fmt::format("{} tuned for {} (tuned problem sizes: {})", nothing, filter.problem->to_string(),
                                  list(tuned_for)));
  if (selected.empty())
    throw ReportError(
        fmt::format("{} tuned on {} (tuned on: {})", nothing, fmt::join(filter.devices, " or "), list(tuned_on)));

  for (Session& session : selected) {
    session.l2_flushed = ranked_timing(*session.stored);
    for (const auto& trial : session.trials()) {
      if (trial.outcome != Outcome::ok) continue;
      if (trial.l2_flushed == session.l2_flushed) session.ranked.push_back(&trial);
      else ++session.timed_other_way;
    }
    std::ranges::sort(session.ranked, [](const TrialRecord* a, const TrialRecord* b) { return faster(*a, *b); });
    const bool has_metric = !session.ranked.empty() && !session.ranked.front()->metric_unit.empty() &&
                            std::ranges::all_of(session.ranked, [&](const TrialRecord* t) {
                              return t->metric_unit == session.ranked.front()->metric_unit;
                            });
    session.measure = has_metric ? Measure{"throughput", session.ranked.front()->metric_unit, true}
                                 : Measure{"median time", "ms", false};
    for (const auto& name : session.kernel->parameter_names)
      if (std::ranges::any_of(session.ranked, [&](const TrialRecord* t) {
            return std::ranges::any_of(parse_config_text(t->config),
                                       [&](const ConfigEntry& p) { return p.name == name && !p.integer; });
          }))
        session.strategy_parameters.push_back(name);
    session.model = model_agreement(session);
  }
  return selected;
}

std::vector<CrossDevice> cross_device_groups(const std::vector<Session>& sessions) {
  // Per kernel and problem, per device: the last session, i.e. the newest kernel version.
  std::map<std::pair<std::string, std::string>, std::map<std::string, const Session*>> groups;
  for (const Session& s : sessions) groups[{s.kernel->name, s.problem().to_string()}][s.device->uuid] = &s;
  std::vector<CrossDevice> result;
  for (const auto& [key, by_device] : groups) {
    if (by_device.size() < 2) continue;
    CrossDevice& group = result.emplace_back();
    group.kernel = key.first;
    group.problem = by_device.begin()->second->problem();
    for (const auto& [uuid, session] : by_device) {
      group.same_source =
          group.same_source && session->kernel->source_hash == by_device.begin()->second->kernel->source_hash;
      group.sessions.push_back(session);
    }
    std::ranges::sort(group.sessions, [](const Session* a, const Session* b) {
      return std::tie(a->device->name, a->device->uuid) < std::tie(b->device->name, b->device->uuid);
    });
  }
  return result;
}

std::string transferred(const Session& from, const Session& on) {
  const TrialRecord* best = from.winner();
  if (!best) return "no configuration ran correctly";
  const TrialRecord* there = on.find(best->config);
  if (!there) return "not measured there";
  if (there->outcome != Outcome::ok) return fmt::format("not timed there: it {}", outcome_words(there->outcome));
  const TrialRecord& best_there = *on.winner();
  return fmt::format("{}, {} of the best there", on.measure.format(on.measure.of(*there)),
                     percent(best_there.median_ms / there->median_ms));
}

Explanation explain_trial(const Session& session, const TrialRecord& t, bool per_launch) {
  Explanation e;
  const TrialRecord* winner = session.winner();
  const bool is_winner = winner == &t;
  e.heading = fmt::format("{}: {}", session.title(), is_winner ? "the winner" : "one configuration");
  e.config = t.config;

  const std::size_t measured = session.ranked.size();
  const std::size_t others = session.trials().size() - measured - session.timed_other_way;
  if (t.outcome != Outcome::ok) {  // its launch shape may not even have been worked out
    e.facts.emplace_back("outcome", outcome_words(t.outcome) + (t.message.empty() ? "" : ": " + t.message));
    if (winner)
      e.facts.emplace_back("winner",
                           fmt::format("{} ({})", winner->config, session.measure.format(session.measure.of(*winner))));
    e.verdict = fmt::format("It was not timed: it {}. {} of the {} configurations tried ran correctly.",
                            outcome_words(t.outcome), measured + session.timed_other_way, session.trials().size());
    return e;
  }

  e.facts.emplace_back("launch", launch_fact(t));
  e.facts.emplace_back("time",
                       fmt::format("{:.4g} ms median of {} runs (fastest {:.4g} ms), {}; spread {} "
                                   "(interquartile range / median): {}",
                                   t.median_ms, t.samples_ms.size(), t.min_ms,
                                   l2_words(t.l2_flushed), percent(t.spread),
                                   stability(t.spread)));
  if (t.predicted_ms)
    e.facts.emplace_back("predicted", fmt::format("{:.4g} ms by the execution-time model; measured {:.2f}x that",
                                                  *t.predicted_ms, t.median_ms / *t.predicted_ms));
  if (!t.metric_unit.empty()) {
    std::string throughput = fmt::format("{:.0f} {}", t.metric, t.metric_unit);
    if (const auto share = session.bandwidth_share(t))
      throughput +=
          fmt::format(", {} of the {:.0f} GB/s device-to-device copy bandwidth measured on this GPU ({})",
                      percent(*share), session.copy_bandwidth->value, utc_time(session.copy_bandwidth->measured_at));
    else if (t.metric_unit == "GB/s")
      throughput += " (the copy bandwidth of this GPU is not stored: `blocktune tune` measures it)";
    e.facts.emplace_back("throughput", throughput);
  }
  e.facts.emplace_back("occupancy", occupancy_fact(t));
  e.facts.emplace_back("resources", resources_fact(t));
  if (session.model) e.facts.emplace_back("model", model_fact(session, *session.model));
  if (!per_launch) return e;
  if (t.l2_flushed != session.l2_flushed) {
    e.facts.emplace_back("rank", fmt::format("not ranked: the {} ranked configurations were timed with {}",
                                             measured, l2_words(session.l2_flushed)));
    e.verdict = fmt::format("It was timed with {}, so its time does not compare with the ranking's; `blocktune tune` "
                            "measures it again when it runs with {}.",
                            l2_words(t.l2_flushed), l2_words(session.l2_flushed));
    return e;
  }
  e.facts.emplace_back("rank", fmt::format("{} of {} timed configurations{}", ordinal(session.rank(t)), measured,
                                           others == 0 ? "" : fmt::format(" ({} more were not timed)", others)));

  if (const TrialRecord* fallback = session.default_trial(); !fallback) {
    e.facts.emplace_back(
        "vs default", session.kernel->default_config.empty()
                          ? "the kernel has no default configuration"
                          : fmt::format("the default configuration {} was not tried", session.kernel->default_config));
  } else if (fallback == &t) {
    e.facts.emplace_back("vs default", "this is the kernel's default configuration");
  } else if (fallback->outcome != Outcome::ok) {
    e.facts.emplace_back("vs default", fmt::format("the default configuration {} {}", fallback->config,
                                                   outcome_words(fallback->outcome)));
  } else {
    const double ratio = fallback->median_ms / t.median_ms;
    e.facts.emplace_back("vs default",
                         fmt::format("{:.3f}x {} than the default {} ({:.4g} ms)", ratio >= 1 ? ratio : 1 / ratio,
                                     ratio >= 1 ? "faster" : "slower", fallback->config, fallback->median_ms));
  }

  if (is_winner && measured > 1) {
    const TrialRecord& runner_up = *session.ranked[1];
    e.facts.emplace_back("vs runner-up", fmt::format("{:.4f}x faster than {} ({:.4g} ms), which differs in {}",
                                                     runner_up.median_ms / t.median_ms, runner_up.config,
                                                     runner_up.median_ms, differences(t, runner_up)));
    e.verdict = winner_verdict(session, t);
  } else if (!is_winner) {
    const double slower = t.median_ms / winner->median_ms;
    e.facts.emplace_back("vs winner", fmt::format("{:.3f}x slower than {} ({:.4g} ms), which differs in {}", slower,
                                                  winner->config, winner->median_ms, differences(t, *winner)));
    e.verdict = fmt::format("It takes {} longer than the winner and ranks {} of {}.", percent(slower - 1),
                            ordinal(session.rank(t)), measured);
    if (slower - 1 < t.spread) e.verdict += " The difference is within its timing spread: as good as the winner.";
  } else {
    e.verdict = "It is the only configuration that ran correctly.";
  }
  return e;
}

void compare_per_step(const Session& session, std::span<const StepLaunch> launches, std::span<const StepLaunch> fastest, const TrialRecord& t,
                      std::int64_t time_steps, Explanation& e) {
  std::vector<std::pair<double, const TrialRecord*>> plans;  // ms per step, fastest first
  for (std::size_t i = 0; i < launches.size(); ++i)
    if (const auto plan = plan_steps(launches[i], time_steps, fastest)) plans.emplace_back(plan->per_step_ms(), session.ranked[i]);
  std::ranges::stable_sort(plans, {}, &std::pair<double, const TrialRecord*>::first);
  const auto mine = std::ranges::find(plans, &t, &std::pair<double, const TrialRecord*>::second);
  if (mine == plans.end()) {
    e.verdict = fmt::format("No plan for {} time steps can launch it (see \"time steps\").", time_steps);
    return;
  }
  const std::size_t rank = static_cast<std::size_t>(mine - plans.begin()) + 1;
  e.facts.emplace_back("rank", fmt::format("{} of {} plans for {} time steps, by time per step (each timed configuration as the main launch)",
                                           ordinal(rank), plans.size(), time_steps));
  std::string against_default;
  const TrialRecord* fallback = session.default_trial();
  if (const auto plan = std::ranges::find(plans, fallback, &std::pair<double, const TrialRecord*>::second);
      fallback && fallback != &t && plan != plans.end()) {
    const double ratio = plan->first / mine->first;
    e.facts.emplace_back("vs default", fmt::format("{:.3f}x {} per step than the default {} ({:.4g} ms per step)", ratio >= 1 ? ratio : 1 / ratio,
                                                   ratio >= 1 ? "faster" : "slower", fallback->config, plan->first));
    against_default = fmt::format(" It is {:.2f}x as fast per step as the kernel's default configuration.", ratio);
  }
  if (rank == 1 && plans.size() > 1) {
    const auto& [ms, runner_up] = plans[1];
    const double lead = ms / mine->first - 1;
    e.facts.emplace_back("vs runner-up", fmt::format("{:.4f}x faster per step than {} ({:.4g} ms per step), which differs in {}", ms / mine->first,
                                                     runner_up->config, ms, differences(t, *runner_up)));
    e.verdict = fmt::format("For {} time steps it is the fastest plan.{} Its lead over the runner-up ({}) is {} its timing spread ({}).", time_steps,
                            against_default, percent(lead), lead < t.spread ? "smaller than" : "larger than", percent(t.spread));
  } else if (rank > 1) {
    const auto& [ms, winner] = plans.front();
    const double slower = mine->first / ms;
    e.facts.emplace_back("vs winner", fmt::format("{:.3f}x slower per step than {} ({:.4g} ms per step), which differs in {}", slower, winner->config,
                                                  ms, differences(t, *winner)));
    e.verdict = fmt::format("For {} time steps it takes {} longer per step than the fastest plan and ranks {} of {}.", time_steps,
                            percent(slower - 1), ordinal(rank), plans.size());
  } else {
    e.verdict = fmt::format("It is the only plan for {} time steps.", time_steps);
  }
}

std::string to_text(const Explanation& e) {
  constexpr std::string_view verdict_label = "in short";
  std::size_t width = verdict_label.size();
  for (const auto& fact : e.facts) width = std::max(width, fact.first.size());
  std::string text = fmt::format("{}\n  {}\n", e.heading, e.config);
  for (const auto& [label, value] : e.facts) text += fmt::format("  {:<{}}  {}", label, width, wrap(value, width + 4));
  return text + fmt::format("  {:<{}}  {}", verdict_label, width, wrap(e.verdict, width + 4));
}

bool ran_on_gpu(Outcome outcome) {
  switch (outcome) {
    case Outcome::ok:
    case Outcome::launch_error:
    case Outcome::runtime_fault:
    case Outcome::timeout:
    case Outcome::wrong_result:
      return true;
    case Outcome::compile_error:
    case Outcome::compile_timeout:
    case Outcome::rejected_by_constraint:
    case Outcome::pruned_by_occupancy:
      return false;
  }
  return false;
}

void TrialCounts::add(const TrialRecord& trial) {
  if (!ran_on_gpu(trial.outcome)) {
    ++not_run[trial.outcome];
    return;
  }
  first_run = ran.empty() ? trial.timestamp : std::min(first_run, trial.timestamp);
  last_run = ran.empty() ? trial.timestamp : std::max(last_run, trial.timestamp);
  ++ran[trial.outcome];
}

std::size_t TrialCounts::ran_total() const { return total(ran); }
std::size_t TrialCounts::not_run_total() const { return total(not_run); }

std::string TrialCounts::text(std::string_view during) const {
  std::string text = ran.empty() ? "No configuration ran on the GPU."
                                 : fmt::format("{} configuration{} ran on the GPU{}: {}.", ran_total(),
                                               ran_total() == 1 ? "" : "s", during, by_outcome(ran));
  if (!not_run.empty())
    text += fmt::format(" {} {} not run: {}.", not_run_total(), not_run_total() == 1 ? "was" : "were",
                        by_outcome(not_run));
  return text;
}

std::string predicted_ms_text(const TrialRecord& trial) {
  return trial.predicted_ms ? fmt::format("{:.4f}", *trial.predicted_ms) : "-";
}

std::string block_text(const LaunchShape& shape) {
  return fmt::format("{}x{}x{}", shape.block[0], shape.block[1], shape.block[2]);
}

std::string utc_time(std::int64_t unix_seconds) {
  return fmt::format("{:%Y-%m-%d %H:%M} UTC", fmt::gmtime(static_cast<std::time_t>(unix_seconds)));
}

}  // namespace blocktune::report
