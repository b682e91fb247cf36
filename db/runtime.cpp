#include <blocktune/runtime.hpp>

#include <blocktune/config_text.hpp>

#include "schema.hpp"
#include "sqlite.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <span>
#include <tuple>
#include <unordered_map>

namespace blocktune {
namespace {

using Parameters = std::vector<std::pair<std::string, std::string>>;

// A session's winner for one step count, as the query needs it.
struct StepWinner {
  std::int64_t time_steps = 1;
  StepLaunch main;
  double total_ms = 0;
  Parameters parameters;  // of main.config
};

// A tuning session (device, kernel version, problem dims) with its winners.
struct Tuned {
  std::size_t device = 0;  // index into State::devices
  std::vector<std::int64_t> dims;
  std::vector<double> log_dims;
  std::vector<StepWinner> winners;   // ascending in time steps
  std::vector<StepLaunch> fastest;   // by steps per launch; empty without multi-step winners
  std::map<std::string, Parameters, std::less<>> launch_parameters;  // of the fastest launches, by config
};

struct Fallback {
  std::string config;
  LaunchShape shape;
  Parameters parameters;  // of config
};

struct KernelModel {
  std::vector<Tuned> tuned;
  std::map<std::pair<int, int>, Fallback> arch_defaults;  // by compute capability
  std::optional<Fallback> kernel_default;
  std::vector<std::size_t> problem_ranks;  // of every problem stored for it, ascending
};

// The cache is looked up with a view of the query, so that a warm query
// allocates nothing.
struct QueryView {
  std::string_view kernel;
  const DeviceKey& device;
  std::span<const std::int64_t> dims;
  std::int64_t time_steps;
};

struct QueryKey {
  std::string kernel;
  DeviceKey device;
  std::vector<std::int64_t> dims;
  std::int64_t time_steps;
  QueryView view() const { return {kernel, device, dims, time_steps}; }
};

struct QueryHash {
  using is_transparent = void;
  static std::size_t combine(std::size_t seed, std::size_t value) {
    return seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
  }
  std::size_t operator()(const QueryView& query) const noexcept {
    const std::hash<std::string_view> hash;
    std::size_t seed = combine(hash(query.kernel), hash(query.device.uuid.empty() ? query.device.name
                                                                                   : query.device.uuid));
    for (const auto dim : query.dims) seed = combine(seed, static_cast<std::size_t>(dim));
    return combine(seed, static_cast<std::size_t>(query.time_steps));
  }
  std::size_t operator()(const QueryKey& key) const noexcept { return (*this)(key.view()); }
};

struct QueryEqual {
  using is_transparent = void;
  static bool equal(const QueryView& a, const QueryView& b) {
    return a.kernel == b.kernel && a.device == b.device && std::ranges::equal(a.dims, b.dims) && a.time_steps == b.time_steps;
  }
  bool operator()(const QueryKey& a, const QueryKey& b) const { return equal(a.view(), b.view()); }
  bool operator()(const QueryView& a, const QueryKey& b) const { return equal(a, b.view()); }
  bool operator()(const QueryKey& a, const QueryView& b) const { return equal(a.view(), b); }
};

std::vector<double> log_dims(std::span<const std::int64_t> dims) {
  std::vector<double> logs;
  logs.reserve(dims.size());
  for (const auto dim : dims) logs.push_back(std::log(static_cast<double>(dim)));
  return logs;
}

// Squared Euclidean distance in log space: 256 is as far from 512 as 1024 is.
double log_distance(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += (a[i] - b[i]) * (a[i] - b[i]);
  return sum;
}

bool same_arch(const DeviceKey& a, const DeviceKey& b) {
  return a.cc_major > 0 && a.cc_major == b.cc_major && a.cc_minor == b.cc_minor;
}

// Whether a device a winner was tuned on qualifies at a fallback level.
bool qualifies(MatchKind level, const DeviceKey& tuned_on, const DeviceKey& wanted) {
  switch (level) {
    case MatchKind::nearest_problem: return !wanted.uuid.empty() && tuned_on.uuid == wanted.uuid;
    case MatchKind::same_device_name: return !wanted.name.empty() && tuned_on.name == wanted.name;
    case MatchKind::same_arch_and_sm_count: return same_arch(tuned_on, wanted) && tuned_on.sm_count == wanted.sm_count;
    case MatchKind::same_arch: return same_arch(tuned_on, wanted);
    default: return false;
  }
}

std::string format_number(double value) {
  char buffer[32];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::general, 4).ptr;
  return std::string(buffer, end);
}

// A stored configuration's parameters, read when the database is opened so
// that a query cannot fail on them. Throws StoreError naming the file.
Parameters read_parameters(const std::filesystem::path& file, std::string_view config) {
  try {
    Parameters parameters;
    for (ConfigEntry& entry : parse_config_text(config)) parameters.emplace_back(std::move(entry.name), std::move(entry.value));
    return parameters;
  } catch (const std::invalid_argument& error) {
    throw StoreError(sqlite::quoted(file) + " holds an " + error.what());
  }
}

LaunchShape read_shape(const sqlite::Cursor& row, int first_column) {
  return LaunchShape{{row.integer(first_column), row.integer(first_column + 1), row.integer(first_column + 2)},
                     row.integer(first_column + 3)};
}

// How a session runs the steps asked, and which of its tuned step counts it credits.
struct SessionPlan {
  const StepWinner* credited;
  StepPlan plan;
  const Parameters* parameters;  // of plan.main.config
};

// A session's plan for `time_steps` steps: its winner for that many; else the
// fastest plan composed from the launches it measured (tuning for T steps
// measures every depth up to T), credited to the smallest tuned count that
// covers the steps asked, else the largest. A session tuned for single steps
// only runs its winner time_steps times.
std::optional<SessionPlan> session_plan(const Tuned& tuned, std::int64_t time_steps) {
  if (tuned.winners.empty()) return std::nullopt;
  const auto covering = std::ranges::lower_bound(tuned.winners, time_steps, {}, &StepWinner::time_steps);
  const StepWinner& credited = covering != tuned.winners.end() ? *covering : tuned.winners.back();
  if (credited.time_steps == time_steps || tuned.fastest.empty()) {
    auto plan = plan_steps(credited.main, time_steps, tuned.fastest);
    if (!plan) return std::nullopt;
    return SessionPlan{&credited, std::move(*plan), &credited.parameters};
  }
  auto ranked = best_step_plan(tuned.fastest, time_steps);
  if (!ranked) return std::nullopt;
  const Parameters* parameters = &tuned.launch_parameters.at(ranked->best.main.config);
  return SessionPlan{&credited, std::move(ranked->best), parameters};
}

}  // namespace

struct TuningDatabase::State {
  std::filesystem::path path;
  std::vector<DeviceKey> devices;  // the devices winners were tuned on
  std::map<std::string, KernelModel, std::less<>> kernels;

  mutable std::shared_mutex answers_mutex;
  mutable std::unordered_map<QueryKey, BestConfig, QueryHash, QueryEqual> answers;

  void load(const sqlite::Connection& db, int schema_version);
  BestConfig answer(std::string_view kernel, const DeviceKey& device, const ProblemSize& problem) const;
};

void TuningDatabase::State::load(const sqlite::Connection& db, int schema_version) {
  // Several source versions of a kernel may have a winner for the same device
  // and problem: rows come oldest first, so the newest version's replaces them.
  // Readers do not migrate: before version 5 every winner is for one step.
  const bool steps = schema_version >= schema::time_steps_version;
  sqlite::Statement winners = db.prepare(std::string(R"sql(
    SELECT k.name, d.uuid, d.name, d.cc_major, d.cc_minor, d.sm_count, p.dims,
           t.config, t.block_x, t.block_y, t.block_z, t.carveout, t.median_ms, k.id, )sql") +
                                         (steps ? "w.time_steps, t.steps_per_launch, w.total_ms" : "1, 1, t.median_ms") + R"sql(
    FROM winners w
    JOIN kernels k ON k.id = w.kernel_id
    JOIN devices d ON d.id = w.device_id
    JOIN problems p ON p.id = w.problem_id
    JOIN trials t ON t.id = w.trial_id
    ORDER BY k.created_at, k.id)sql");
  std::map<std::string, std::size_t, std::less<>> device_index;
  // The session a (kernel, device, dims) slot holds, and the kernel version it came from.
  std::map<std::tuple<std::string, std::size_t, std::string>, std::pair<std::size_t, std::int64_t>> slot;
  std::map<std::tuple<std::string, std::string, std::string>, Tuned*> multi_step;  // by kernel, device uuid, dims
  for (auto row = winners.query(); row.next();) {
    auto [device, added] = device_index.try_emplace(row.text(1), devices.size());
    if (added) devices.push_back({row.text(1), row.text(2), row.integer(3), row.integer(4), row.integer(5)});

    KernelModel& model = kernels[row.text(0)];
    const std::int64_t kernel_id = row.int64(13);
    auto [place, fresh] = slot.try_emplace({row.text(0), device->second, row.text(6)}, std::pair{model.tuned.size(), kernel_id});
    if (fresh) {
      Tuned& tuned = model.tuned.emplace_back();
      tuned.device = device->second;
      try {
        tuned.dims = ProblemSize::parse(row.text_view(6)).dims;
      } catch (const std::invalid_argument& error) {
        throw StoreError(sqlite::quoted(path) + " holds an invalid " + error.what());
      }
      tuned.log_dims = log_dims(tuned.dims);
    } else if (place->second.second != kernel_id) {
      model.tuned[place->second.first].winners.clear();  // a newer kernel version
      place->second.second = kernel_id;
    }
    Tuned& tuned = model.tuned[place->second.first];
    const StepLaunch main{row.text(7), read_shape(row, 8), row.int64(15), row.real(12)};
    tuned.winners.push_back({row.int64(14), main, row.real(16), read_parameters(path, main.config)});
    if (tuned.winners.back().time_steps > 1) multi_step[{row.text(0), row.text(1), row.text(6)}] = &tuned;
  }
  for (auto& [name, model] : kernels)
    for (Tuned& tuned : model.tuned) std::ranges::sort(tuned.winners, {}, &StepWinner::time_steps);
  // Remainders are composed from a session's fastest launch per steps per
  // launch; only sessions tuned for several steps need them. From version 7,
  // of the launches timed as the session's latest winner was (flushed and warm
  // times do not compare).
  if (!multi_step.empty()) {
    const std::string timed_alike = schema_version >= schema::l2_flushed_version ? R"sql(
        AND t.l2_flushed = (SELECT tw.l2_flushed FROM winners w JOIN trials tw ON tw.id = w.trial_id
                            WHERE w.device_id = t.device_id AND w.kernel_id = t.kernel_id AND w.problem_id = t.problem_id
                            ORDER BY w.updated_at DESC, w.time_steps DESC LIMIT 1))sql"
                                                                                : "";
    sqlite::Statement fastest = db.prepare(R"sql(
      SELECT k.name, d.uuid, p.dims, t.config, t.block_x, t.block_y, t.block_z, t.carveout, t.steps_per_launch, min(t.median_ms)
      FROM trials t
      JOIN kernels k ON k.id = t.kernel_id
      JOIN devices d ON d.id = t.device_id
      JOIN problems p ON p.id = t.problem_id
      WHERE t.outcome = 'ok' AND (t.device_id, t.kernel_id, t.problem_id) IN (SELECT device_id, kernel_id, problem_id FROM winners WHERE time_steps > 1))sql" +
                                                            timed_alike + R"sql(
      GROUP BY t.device_id, t.kernel_id, t.problem_id, t.steps_per_launch
      ORDER BY k.created_at, k.id, t.steps_per_launch)sql");
    for (auto row = fastest.query(); row.next();) {
      const auto session = multi_step.find({row.text(0), row.text(1), row.text(2)});
      if (session == multi_step.end()) continue;
      std::vector<StepLaunch>& launches = session->second->fastest;
      const StepLaunch launch{row.text(3), read_shape(row, 4), row.int64(8), row.real(9)};
      Parameters parameters = read_parameters(path, launch.config);
      // An older kernel version's rows come first: the newer one's replace them.
      auto& parameters_by_config = session->second->launch_parameters;
      if (const auto same = std::ranges::find(launches, launch.steps, &StepLaunch::steps); same != launches.end()) {
        parameters_by_config.erase(same->config);
        *same = launch;
      } else {
        launches.push_back(launch);
      }
      parameters_by_config.insert_or_assign(launch.config, std::move(parameters));
    }
  }

  sqlite::Statement defaults = db.prepare(R"sql(
    SELECT name, default_config, default_block_x, default_block_y, default_block_z, default_carveout
    FROM kernels WHERE default_config <> '' AND default_block_x IS NOT NULL ORDER BY created_at, id)sql");
  for (auto row = defaults.query(); row.next();)
    kernels[row.text(0)].kernel_default = Fallback{row.text(1), read_shape(row, 2), read_parameters(path, row.text_view(1))};

  sqlite::Statement arch_defaults = db.prepare(
      "SELECT kernel_name, cc_major, cc_minor, config, block_x, block_y, block_z, carveout FROM arch_defaults");
  for (auto row = arch_defaults.query(); row.next();)
    kernels[row.text(0)].arch_defaults[{row.integer(1), row.integer(2)}] =
        Fallback{row.text(3), read_shape(row, 4), read_parameters(path, row.text_view(3))};

  // A problem's dimensions are its dims' 'x's plus one.
  sqlite::Statement ranks = db.prepare(
      "SELECT DISTINCT k.name, length(p.dims) - length(replace(p.dims, 'x', '')) + 1 AS rank "
      "FROM problems p JOIN kernels k ON k.id = p.kernel_id ORDER BY k.name, rank");
  for (auto row = ranks.query(); row.next();)
    kernels[row.text(0)].problem_ranks.push_back(static_cast<std::size_t>(row.int64(1)));
}

BestConfig TuningDatabase::State::answer(std::string_view kernel, const DeviceKey& device,
                                         const ProblemSize& problem) const {
  const auto found = kernels.find(kernel);
  if (found == kernels.end()) return {};
  const KernelModel& model = found->second;

  const auto wanted = log_dims(problem.dims);
  for (const auto level : {MatchKind::nearest_problem, MatchKind::same_device_name,
                           MatchKind::same_arch_and_sm_count, MatchKind::same_arch}) {
    // Within a level: nearest problem, then closest SM count, then fastest
    // per step; the uuid makes the choice deterministic. A session whose
    // winners cannot run the steps asked does not qualify.
    const Tuned* best = nullptr;
    std::optional<SessionPlan> best_plan;
    std::tuple<double, int, double, std::string_view> best_rank;
    for (const Tuned& tuned : model.tuned) {
      const DeviceKey& tuned_on = devices[tuned.device];
      if (tuned.dims.size() != problem.dims.size() || !qualifies(level, tuned_on, device)) continue;
      auto plan = session_plan(tuned, problem.time_steps);
      if (!plan) continue;
      const std::tuple rank{log_distance(tuned.log_dims, wanted), std::abs(tuned_on.sm_count - device.sm_count),
                            plan->plan.per_step_ms(), std::string_view(tuned_on.uuid)};
      if (!best || rank < best_rank) {
        best = &tuned;
        best_plan = std::move(plan);
        best_rank = rank;
      }
    }
    if (best) {
      const DeviceKey& tuned_on = devices[best->device];
      const auto& [credited, plan, parameters] = *best_plan;
      BestConfig answer;
      answer.match = level == MatchKind::nearest_problem && best->dims == problem.dims && credited->time_steps == problem.time_steps
                         ? MatchKind::exact
                         : level;
      answer.shape = plan.main.shape;
      answer.parameters = *parameters;
      answer.config = plan.main.config;
      answer.median_ms = plan.main.median_ms;
      answer.tuned_device = tuned_on.name;
      answer.tuned_device_uuid = tuned_on.uuid;
      answer.tuned_problem = ProblemSize{best->dims, credited->time_steps};
      answer.time_steps = problem.time_steps;
      answer.steps_per_launch = plan.main.steps;
      answer.launches = plan.launches;
      answer.remainder = plan.remainder;
      answer.total_ms = plan.total_ms;
      return answer;
    }
  }

  const auto fallback = [&problem](MatchKind match, const Fallback& chosen) {
    BestConfig answer;
    answer.match = match;
    answer.time_steps = answer.launches = problem.time_steps;
    answer.shape = chosen.shape;
    answer.parameters = chosen.parameters;
    answer.config = chosen.config;
    return answer;
  };
  if (const auto arch = model.arch_defaults.find({device.cc_major, device.cc_minor});
      arch != model.arch_defaults.end())
    return fallback(MatchKind::arch_default, arch->second);
  if (model.kernel_default) return fallback(MatchKind::kernel_default, *model.kernel_default);
  return {};
}

TuningDatabase::TuningDatabase(std::shared_ptr<State> state) : state_(std::move(state)) {}

TuningDatabase TuningDatabase::open(const std::filesystem::path& file) {
  const auto db = sqlite::Connection::open(file, sqlite::Connection::Mode::read_only);
  auto state = std::make_shared<State>();
  state->path = file;
  sqlite::Transaction snapshot(db, sqlite::Transaction::Kind::read);  // one consistent view
  state->load(db, schema::require_tuning_database(db));
  snapshot.commit();
  return TuningDatabase(std::move(state));
}

TuningDatabase TuningDatabase::empty() { return TuningDatabase(std::make_shared<State>()); }

const BestConfig& TuningDatabase::best(std::string_view kernel, const DeviceKey& device,
                                       const ProblemSize& problem) const& {
  State& state = *state_;
  const QueryView query{kernel, device, problem.dims, problem.time_steps};
  {
    std::shared_lock lock(state.answers_mutex);
    if (const auto cached = state.answers.find(query); cached != state.answers.end()) return cached->second;
  }
  BestConfig answer = state.answer(kernel, device, problem);
  std::unique_lock lock(state.answers_mutex);
  // Map nodes never move, so the reference outlives the lock.
  return state.answers.try_emplace(QueryKey{std::string(kernel), device, problem.dims, problem.time_steps}, std::move(answer))
      .first->second;
}

BestConfig TuningDatabase::best(std::string_view kernel, const DeviceKey& device, const ProblemSize& problem) && {
  return state_->answer(kernel, device, problem);
}

std::vector<std::size_t> TuningDatabase::problem_ranks(std::string_view kernel) const {
  const auto found = state_->kernels.find(kernel);
  return found == state_->kernels.end() ? std::vector<std::size_t>() : found->second.problem_ranks;
}

const std::filesystem::path& TuningDatabase::path() const { return state_->path; }

// ---- Small helpers ----

std::string_view describe(MatchKind match) {
  switch (match) {
    case MatchKind::exact: return "exact match";
    case MatchKind::nearest_problem: return "nearest tuned problem size";
    case MatchKind::same_device_name: return "another device of the same name";
    case MatchKind::same_arch_and_sm_count: return "same compute capability and SM count";
    case MatchKind::same_arch: return "same compute capability";
    case MatchKind::arch_default: return "occupancy default for the architecture";
    case MatchKind::kernel_default: return "the kernel's default configuration";
    case MatchKind::none: break;
  }
  return "nothing stored for this kernel fits this device";
}

std::optional<std::string_view> BestConfig::get(std::string_view name) const {
  for (const auto& [key, value] : parameters)
    if (key == name) return value;
  return std::nullopt;
}

int BestConfig::get_int(std::string_view name, int fallback) const {
  const auto text = get(name);
  if (!text) return fallback;
  int value = 0;
  const auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), value);
  return error == std::errc() && end == text->data() + text->size() ? value : fallback;
}

std::filesystem::path default_database_path() {
  if (const char* file = std::getenv("BLOCKTUNE_DB"); file && *file) return file;
  // The XDG base directory spec says to ignore relative paths.
  if (const char* data = std::getenv("XDG_DATA_HOME"); data && *data == '/')
    return std::filesystem::path(data) / "blocktune" / "tuning.db";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::filesystem::path(home) / ".local" / "share" / "blocktune" / "tuning.db";
  return "tuning.db";  // no home at all (a bare container): the working directory
}

std::string format_best(const BestConfig& best) {
  if (!best.found()) return "no configuration: " + std::string(describe(best.match));
  const auto& block = best.shape.block;
  std::string text = "configuration: " + (best.config.empty() ? std::string("(none)") : best.config) + "\n";
  text += "launch:        block " + std::to_string(block[0]) + "x" + std::to_string(block[1]) + "x" +
          std::to_string(block[2]) + ", carveout " +
          (best.shape.carveout < 0 ? std::string("driver default") : std::to_string(best.shape.carveout) + "%") +
          "\n";
  text += "found by:      " + std::string(describe(best.match));
  if (!best.tuned_device.empty())
    text += " (tuned on " + best.tuned_device + " " + best.tuned_device_uuid + " for " +
            best.tuned_problem.describe() + ", median " + format_number(best.median_ms) + " ms per launch)";
  if (best.time_steps > 1 || best.steps_per_launch > 1) {
    text += "\ntime steps:    " + std::to_string(best.time_steps) + " as " + std::to_string(best.launches) + (best.launches == 1 ? " launch of " : " launches of ") +
            std::to_string(best.steps_per_launch) + (best.steps_per_launch == 1 ? " step" : " steps");
    for (const StepLaunch& launch : best.remainder)
      text += ", then " + launch.config + " (" + std::to_string(launch.steps) + (launch.steps == 1 ? " step)" : " steps)");
    if (best.total_ms > 0)
      text += "; " + format_number(best.total_ms) + " ms in all, " + format_number(best.total_ms / static_cast<double>(best.time_steps)) +
              " ms per step";
    if (!best.tuned_device.empty() && best.tuned_problem.time_steps != best.time_steps)
      text += "\n               (no winner tuned for " + std::to_string(best.time_steps) + " time steps: the fastest plan of the launches measured when tuning for " +
              std::to_string(best.tuned_problem.time_steps) + ")";
  }
  return text;
}

std::string format_gpu_uuid(const char (&bytes)[16]) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string text = "GPU-";
  for (std::size_t i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text += '-';
    const auto byte = static_cast<unsigned char>(bytes[i]);
    text += hex[byte >> 4];
    text += hex[byte & 0xf];
  }
  return text;
}

}  // namespace blocktune
