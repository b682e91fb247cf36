#include <blocktune/runtime.hpp>

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

// A winner as the query needs it.
struct Tuned {
  std::size_t device = 0;  // index into State::devices
  std::vector<std::int64_t> dims;
  std::vector<double> log_dims;
  std::string config;
  LaunchShape shape;
  double median_ms = 0;
};

struct Fallback {
  std::string config;
  LaunchShape shape;
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
};

struct QueryKey {
  std::string kernel;
  DeviceKey device;
  std::vector<std::int64_t> dims;
  QueryView view() const { return {kernel, device, dims}; }
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
    return seed;
  }
  std::size_t operator()(const QueryKey& key) const noexcept { return (*this)(key.view()); }
};

struct QueryEqual {
  using is_transparent = void;
  static bool equal(const QueryView& a, const QueryView& b) {
    return a.kernel == b.kernel && a.device == b.device && std::ranges::equal(a.dims, b.dims);
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

std::vector<std::pair<std::string, std::string>> parse_config(std::string_view config) {
  std::vector<std::pair<std::string, std::string>> parameters;
  while (!config.empty()) {
    const auto comma = config.find(',');
    const auto item = config.substr(0, comma);
    const auto equals = item.find('=');
    parameters.emplace_back(item.substr(0, equals), equals == item.npos ? "" : item.substr(equals + 1));
    config = comma == config.npos ? std::string_view() : config.substr(comma + 1);
  }
  return parameters;
}

std::string format_number(double value) {
  char buffer[32];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::general, 4).ptr;
  return std::string(buffer, end);
}

LaunchShape read_shape(const sqlite::Cursor& row, int first_column) {
  return LaunchShape{{row.integer(first_column), row.integer(first_column + 1), row.integer(first_column + 2)},
                     row.integer(first_column + 3)};
}

}  // namespace

struct TuningDatabase::State {
  std::filesystem::path path;
  std::vector<DeviceKey> devices;  // the devices winners were tuned on
  std::map<std::string, KernelModel, std::less<>> kernels;

  mutable std::shared_mutex answers_mutex;
  mutable std::unordered_map<QueryKey, BestConfig, QueryHash, QueryEqual> answers;

  void load(const sqlite::Connection& db);
  BestConfig answer(std::string_view kernel, const DeviceKey& device, const ProblemSize& problem) const;
};

void TuningDatabase::State::load(const sqlite::Connection& db) {
  // Several source versions of a kernel may have a winner for the same device
  // and problem: rows come oldest first, so the newest version's replaces them.
  sqlite::Statement winners = db.prepare(R"sql(
    SELECT k.name, d.uuid, d.name, d.cc_major, d.cc_minor, d.sm_count, p.dims,
           t.config, t.block_x, t.block_y, t.block_z, t.carveout, t.median_ms
    FROM winners w
    JOIN kernels k ON k.id = w.kernel_id
    JOIN devices d ON d.id = w.device_id
    JOIN problems p ON p.id = w.problem_id
    JOIN trials t ON t.id = w.trial_id
    ORDER BY k.created_at, k.id)sql");
  std::map<std::string, std::size_t, std::less<>> device_index;
  std::map<std::tuple<std::string, std::size_t, std::string>, std::size_t> slot;
  for (auto row = winners.query(); row.next();) {
    auto [device, added] = device_index.try_emplace(row.text(1), devices.size());
    if (added) devices.push_back({row.text(1), row.text(2), row.integer(3), row.integer(4), row.integer(5)});

    Tuned tuned;
    tuned.device = device->second;
    try {
      tuned.dims = ProblemSize::parse(row.text_view(6)).dims;
    } catch (const std::invalid_argument& error) {
      throw StoreError(sqlite::quoted(path) + " holds an invalid " + error.what());
    }
    tuned.log_dims = log_dims(tuned.dims);
    tuned.config = row.text(7);
    tuned.shape = read_shape(row, 8);
    tuned.median_ms = row.real(12);

    KernelModel& model = kernels[row.text(0)];
    auto [place, fresh] = slot.try_emplace({row.text(0), tuned.device, row.text(6)}, model.tuned.size());
    if (fresh) {
      model.tuned.push_back(std::move(tuned));
    } else {
      model.tuned[place->second] = std::move(tuned);
    }
  }

  sqlite::Statement defaults = db.prepare(R"sql(
    SELECT name, default_config, default_block_x, default_block_y, default_block_z, default_carveout
    FROM kernels WHERE default_config <> '' AND default_block_x IS NOT NULL ORDER BY created_at, id)sql");
  for (auto row = defaults.query(); row.next();)
    kernels[row.text(0)].kernel_default = Fallback{row.text(1), read_shape(row, 2)};

  sqlite::Statement arch_defaults = db.prepare(
      "SELECT kernel_name, cc_major, cc_minor, config, block_x, block_y, block_z, carveout FROM arch_defaults");
  for (auto row = arch_defaults.query(); row.next();)
    kernels[row.text(0)].arch_defaults[{row.integer(1), row.integer(2)}] = Fallback{row.text(3), read_shape(row, 4)};

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
    // Within a level: nearest problem, then closest SM count, then fastest;
    // the uuid makes the choice deterministic.
    const Tuned* best = nullptr;
    std::tuple<double, int, double, std::string_view> best_rank;
    for (const Tuned& tuned : model.tuned) {
      const DeviceKey& tuned_on = devices[tuned.device];
      if (tuned.dims.size() != problem.dims.size() || !qualifies(level, tuned_on, device)) continue;
      const std::tuple rank{log_distance(tuned.log_dims, wanted), std::abs(tuned_on.sm_count - device.sm_count),
                            tuned.median_ms, std::string_view(tuned_on.uuid)};
      if (!best || rank < best_rank) {
        best = &tuned;
        best_rank = rank;
      }
    }
    if (best) {
      const DeviceKey& tuned_on = devices[best->device];
      BestConfig answer;
      answer.match = level == MatchKind::nearest_problem && best->dims == problem.dims ? MatchKind::exact : level;
      answer.shape = best->shape;
      answer.parameters = parse_config(best->config);
      answer.config = best->config;
      answer.median_ms = best->median_ms;
      answer.tuned_device = tuned_on.name;
      answer.tuned_device_uuid = tuned_on.uuid;
      answer.tuned_problem.dims = best->dims;
      return answer;
    }
  }

  const auto fallback = [](MatchKind match, const Fallback& chosen) {
    BestConfig answer;
    answer.match = match;
    answer.shape = chosen.shape;
    answer.parameters = parse_config(chosen.config);
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
  schema::require_tuning_database(db);
  state->load(db);
  snapshot.commit();
  return TuningDatabase(std::move(state));
}

const BestConfig& TuningDatabase::best(std::string_view kernel, const DeviceKey& device,
                                       const ProblemSize& problem) const& {
  State& state = *state_;
  const QueryView query{kernel, device, problem.dims};
  {
    std::shared_lock lock(state.answers_mutex);
    if (const auto cached = state.answers.find(query); cached != state.answers.end()) return cached->second;
  }
  BestConfig answer = state.answer(kernel, device, problem);
  std::unique_lock lock(state.answers_mutex);
  // Map nodes never move, so the reference outlives the lock.
  return state.answers.try_emplace(QueryKey{std::string(kernel), device, problem.dims}, std::move(answer))
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
            best.tuned_problem.to_string() + ", median " + format_number(best.median_ms) + " ms)";
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
