#include "store_impl.hpp"

#include "schema.hpp"

#include <blocktune/config_text.hpp>
#include <blocktune/text.hpp>

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <chrono>
#include <cmath>

namespace blocktune {
namespace {

constexpr std::array outcome_names{"ok",           "compile_error", "launch_error",           "runtime_fault",       "timeout",
                                   "wrong_result", "rejected_by_constraint", "pruned_by_occupancy", "compile_timeout"};

std::int64_t now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Samples are stored as text (exact_text): readable in the sqlite3 shell, exact on the way back.
std::vector<double> decode_samples(std::string_view text, const std::filesystem::path& file) {
  std::vector<double> samples;
  const char* position = text.data();
  const char* const end = text.data() + text.size();
  while (position != end) {
    double value = 0;
    const auto result = std::from_chars(position, end, value);
    if (result.ec != std::errc()) throw StoreError(sqlite::quoted(file) + " holds unreadable timing samples");
    samples.push_back(value);
    position = result.ptr == end ? end : result.ptr + 1;
  }
  return samples;
}

template <class Record>
void require_valid(const Record& record) {
  if (const auto problem = find_problem(record)) throw std::invalid_argument(*problem);
}

std::string upsert_trial_sql() {
  std::string placeholders = "?1, ?2, ?3";
  std::string updates;
  int count = 3;
  for (std::string_view columns = trial_columns; !columns.empty();) {
    const auto comma = columns.find(',');
    const auto column = columns.substr(0, comma);
    placeholders += fmt::format(", ?{}", ++count);
    if (column != "config") updates += fmt::format("{}{} = excluded.{}", updates.empty() ? "" : ", ", column, column);
    columns = comma == columns.npos ? std::string_view() : columns.substr(comma + 2);
  }
  return fmt::format(
      "INSERT INTO trials (device_id, kernel_id, problem_id, {}) VALUES ({}) "
      "ON CONFLICT (device_id, kernel_id, problem_id, config) DO UPDATE SET {}",
      trial_columns, placeholders, updates);
}

}  // namespace

std::string_view to_string(Outcome outcome) { return outcome_names.at(static_cast<std::size_t>(outcome)); }

std::optional<Outcome> parse_outcome(std::string_view text) {
  for (std::size_t i = 0; i < outcome_names.size(); ++i)
    if (outcome_names[i] == text) return static_cast<Outcome>(i);
  return std::nullopt;
}

// ---- Validation ----

namespace {

// What the run-time query would find wrong in a configuration's text, if anything.
std::optional<std::string> find_problem_in_config(std::string_view config) {
  try {
    parse_config_text(config);
    return std::nullopt;
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
}

}  // namespace

std::optional<std::string> find_problem(const DeviceRecord& device) {
  if (device.uuid.empty()) return "device '" + device.name + "' has no uuid";
  return std::nullopt;
}

std::optional<std::string> find_problem(const KernelRecord& kernel) {
  if (kernel.name.empty()) return "kernel without a name";
  for (const auto& name : kernel.parameter_names)
    if (name.empty() || name.find_first_of(",=") != std::string::npos)
      return "kernel '" + kernel.name + "': parameter name '" + name + "' is empty or contains ',' or '='";
  if (auto problem = find_problem_in_config(kernel.default_config)) return "kernel '" + kernel.name + "' default: " + *problem;
  if (kernel.default_shape)
    if (auto problem = find_problem(*kernel.default_shape)) return "kernel '" + kernel.name + "' default: " + *problem;
  return std::nullopt;
}

std::optional<std::string> find_problem(const ProblemSize& problem) {
  if (problem.dims.empty()) return "problem size without dimensions";
  for (const auto dim : problem.dims)
    if (dim <= 0) return "problem size '" + problem.to_string() + "' has a dimension that is not positive";
  return std::nullopt;
}

std::optional<std::string> find_problem(const LaunchShape& shape) {
  for (const int extent : shape.block)
    if (extent < 1) return fmt::format("block dimension {} is not positive", extent);
  if (shape.carveout < -1 || shape.carveout > 100)
    return fmt::format("carveout {} is outside -1 (driver default) to 100", shape.carveout);
  return std::nullopt;
}

std::optional<std::string> find_problem(const TrialRecord& trial) {
  if (trial.config.empty()) return "trial without a config";
  if (auto problem = find_problem_in_config(trial.config)) return problem;
  if (auto problem = find_problem(trial.shape)) return "config '" + trial.config + "': " + *problem;
  for (const double value : {trial.median_ms, trial.min_ms, trial.mean_ms, trial.spread, trial.occupancy,
                             trial.compile_s, trial.verify_s, trial.benchmark_s, trial.metric})
    if (!std::isfinite(value)) return "config '" + trial.config + "': a statistic is not a finite number";
  for (const double sample : trial.samples_ms)
    if (!std::isfinite(sample)) return "config '" + trial.config + "': a timing sample is not a finite number";
  if (trial.outcome == Outcome::ok && !(trial.median_ms > 0))
    return "config '" + trial.config + "': an ok trial needs a positive median time";
  if (trial.predicted_ms && !(std::isfinite(*trial.predicted_ms) && *trial.predicted_ms > 0))
    return "config '" + trial.config + "': a predicted time must be a positive number";
  if (trial.steps_per_launch < 1) return "config '" + trial.config + "': a launch advances at least one time step";
  if (trial.resident_warps && (*trial.resident_warps < 0 || *trial.resident_warps > 64))
    return "config '" + trial.config + "': resident warps per SM must be 0 to 64";
  return std::nullopt;
}

std::optional<std::string> find_problem(const DeviceMetric& metric) {
  if (metric.name.empty()) return "device metric without a name";
  if (!std::isfinite(metric.value)) return "device metric '" + metric.name + "' is not a finite number";
  return std::nullopt;
}

std::string join_names(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : ",") + name;
  return text;
}

std::vector<std::string> split_names(std::string_view text) {
  std::vector<std::string> names;
  while (!text.empty()) {
    const auto comma = text.find(',');
    names.emplace_back(text.substr(0, comma));
    text = comma == text.npos ? std::string_view() : text.substr(comma + 1);
  }
  return names;
}

ShapeColumns shape_columns(const std::optional<LaunchShape>& shape) {
  if (!shape) return {};
  return {shape->block[0], shape->block[1], shape->block[2], shape->carveout};
}

TrialRecord read_trial(const sqlite::Cursor& row, int first, const std::filesystem::path& file) {
  int column = first;
  const auto next = [&] { return column++; };
  TrialRecord trial;
  trial.config = row.text(next());
  for (int& extent : trial.shape.block) extent = row.integer(next());
  trial.shape.carveout = row.integer(next());
  const auto outcome = parse_outcome(row.text_view(next()));
  if (!outcome) throw StoreError(sqlite::quoted(file) + " holds a trial with an unknown outcome");
  trial.outcome = *outcome;
  trial.message = row.text(next());
  trial.samples_ms = decode_samples(row.text_view(next()), file);
  trial.median_ms = row.real(next());
  trial.min_ms = row.real(next());
  trial.mean_ms = row.real(next());
  trial.spread = row.real(next());
  for (int* field : {&trial.registers, &trial.static_smem, &trial.dynamic_smem, &trial.local_bytes,
                     &trial.spill_stores, &trial.spill_loads, &trial.blocks_per_sm})
    *field = row.integer(next());
  trial.occupancy = row.real(next());
  trial.limiting_factor = row.text(next());
  trial.compile_s = row.real(next());
  trial.verify_s = row.real(next());
  trial.benchmark_s = row.real(next());
  trial.timestamp = row.int64(next());
  trial.blocktune_version = row.text(next());
  trial.sm_clock_mhz = row.integer(next());
  trial.metric = row.real(next());
  trial.metric_unit = row.text(next());
  if (const int predicted = next(); !row.is_null(predicted)) trial.predicted_ms = row.real(predicted);
  trial.steps_per_launch = row.int64(next());
  trial.l2_flushed = row.integer(next()) != 0;
  if (const int resident = next(); !row.is_null(resident)) trial.resident_warps = row.integer(resident);
  return trial;
}

std::string trial_select_list(int schema_version) {
  // A column added after schema_version reads as its value for older trials.
  std::string list;
  for (std::string_view rest = trial_columns; !rest.empty();) {
    const auto comma = rest.find(", ");
    std::string_view column = rest.substr(0, comma);
    rest = comma == rest.npos ? std::string_view() : rest.substr(comma + 2);
    if (column == "predicted_ms" && schema_version < schema::predicted_ms_version) column = "NULL";
    if (column == "steps_per_launch" && schema_version < schema::time_steps_version) column = "1";
    if (column == "l2_flushed" && schema_version < schema::l2_flushed_version) column = "0";
    if (column == "resident_warps" && schema_version < schema::resident_warps_version) column = "NULL";
    list.append(list.empty() ? "" : ", ").append(column);
  }
  return list;
}

StepLaunch step_launch(const TrialRecord& trial) { return {trial.config, trial.shape, trial.steps_per_launch, trial.median_ms}; }

// ---- Store ----

Store::Impl::Impl(sqlite::Connection connection)
    : db(std::move(connection)),
      upsert_device(db.prepare(R"sql(
        INSERT INTO devices (uuid, name, cc_major, cc_minor, sm_count, memory_bytes, l2_bytes, sm_clock_mhz,
                             memory_clock_mhz, memory_bus_bits, driver_version, cuda_version, ecc)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
        ON CONFLICT (uuid) DO UPDATE SET
          name = excluded.name, cc_major = excluded.cc_major, cc_minor = excluded.cc_minor,
          sm_count = excluded.sm_count, memory_bytes = excluded.memory_bytes, l2_bytes = excluded.l2_bytes,
          sm_clock_mhz = excluded.sm_clock_mhz, memory_clock_mhz = excluded.memory_clock_mhz,
          memory_bus_bits = excluded.memory_bus_bits, driver_version = excluded.driver_version,
          cuda_version = excluded.cuda_version, ecc = excluded.ecc
        RETURNING id)sql")),
      upsert_kernel(db.prepare(R"sql(
        INSERT INTO kernels (name, source_hash, parameter_names, default_config, default_block_x, default_block_y,
                             default_block_z, default_carveout, created_at, counts_work)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
        ON CONFLICT (name, source_hash) DO UPDATE SET
          parameter_names = excluded.parameter_names, default_config = excluded.default_config,
          counts_work = coalesce(excluded.counts_work, counts_work),
          -- an unknown shape keeps the one learned for the same default config
          default_block_x = CASE WHEN excluded.default_config = default_config
                            THEN coalesce(excluded.default_block_x, default_block_x) ELSE excluded.default_block_x END,
          default_block_y = CASE WHEN excluded.default_config = default_config
                            THEN coalesce(excluded.default_block_y, default_block_y) ELSE excluded.default_block_y END,
          default_block_z = CASE WHEN excluded.default_config = default_config
                            THEN coalesce(excluded.default_block_z, default_block_z) ELSE excluded.default_block_z END,
          default_carveout = CASE WHEN excluded.default_config = default_config
                             THEN coalesce(excluded.default_carveout, default_carveout) ELSE excluded.default_carveout END
        RETURNING id)sql")),
      find_problem_id(db.prepare("SELECT id FROM problems WHERE kernel_id = ?1 AND dims = ?2")),
      insert_problem(db.prepare("INSERT INTO problems (kernel_id, dims) VALUES (?1, ?2) RETURNING id")),
      measured_problems(db.prepare(
          "SELECT id, dims FROM problems WHERE kernel_id = ?2 AND EXISTS "
          "(SELECT 1 FROM trials WHERE device_id = ?1 AND kernel_id = ?2 AND problem_id = problems.id) ORDER BY id")),
      select_trials(db.prepare(fmt::format(
          "SELECT {} FROM trials WHERE device_id = ?1 AND kernel_id = ?2 AND problem_id = ?3 ORDER BY id",
          trial_columns))),
      has_trial(db.prepare(
          "SELECT 1 FROM trials WHERE device_id = ?1 AND kernel_id = ?2 AND problem_id = ?3 AND config = ?4")),
      trial_timestamp(db.prepare("SELECT timestamp FROM trials WHERE device_id = ?1 AND kernel_id = ?2 AND "
                                 "problem_id = ?3 AND config = ?4")),
      upsert_trial(db.prepare(upsert_trial_sql())),
      ok_launches(db.prepare(R"sql(
        SELECT id, config, block_x, block_y, block_z, carveout, steps_per_launch, median_ms FROM trials
        WHERE device_id = ?1 AND kernel_id = ?2 AND problem_id = ?3 AND outcome = 'ok'
          -- timed as ?4 says, else as the latest measurement was: flushed and warm times do not compare
          AND l2_flushed = coalesce(?4, (SELECT l2_flushed FROM trials WHERE device_id = ?1 AND kernel_id = ?2 AND problem_id = ?3
                                         AND outcome = 'ok' ORDER BY timestamp DESC, id DESC LIMIT 1))
        ORDER BY median_ms, min_ms, config)sql")),
      default_config(db.prepare("SELECT default_config FROM kernels WHERE id = ?1")),
      learn_default_shape(db.prepare(
          "UPDATE kernels SET default_block_x = ?3, default_block_y = ?4, default_block_z = ?5, default_carveout = ?6 "
          "WHERE id = ?1 AND default_config = ?2 AND default_block_x IS NULL")),
      upsert_winner(db.prepare(R"sql(
        INSERT INTO winners (device_id, kernel_id, problem_id, time_steps, trial_id, total_ms, margin_runner_up, margin_default,
                             updated_at)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
        ON CONFLICT (device_id, kernel_id, problem_id, time_steps) DO UPDATE SET
          trial_id = excluded.trial_id, total_ms = excluded.total_ms, margin_runner_up = excluded.margin_runner_up,
          margin_default = excluded.margin_default, updated_at = excluded.updated_at)sql")),
      delete_winner(db.prepare(
          "DELETE FROM winners WHERE device_id = ?1 AND kernel_id = ?2 AND problem_id = ?3 AND time_steps = ?4")),
      winner_time_steps(db.prepare(
          "SELECT time_steps FROM winners WHERE device_id = ?1 AND kernel_id = ?2 AND problem_id = ?3 ORDER BY time_steps")),
      upsert_arch_default(db.prepare(R"sql(
        INSERT INTO arch_defaults (kernel_name, cc_major, cc_minor, config, block_x, block_y, block_z, carveout)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
        ON CONFLICT (kernel_name, cc_major, cc_minor) DO UPDATE SET
          config = excluded.config, block_x = excluded.block_x, block_y = excluded.block_y,
          block_z = excluded.block_z, carveout = excluded.carveout)sql")),
      upsert_device_metric(db.prepare(R"sql(
        INSERT INTO device_metrics (device_id, name, value, unit, measured_at, blocktune_version)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6)
        ON CONFLICT (device_id, name) DO UPDATE SET
          value = excluded.value, unit = excluded.unit, measured_at = excluded.measured_at,
          blocktune_version = excluded.blocktune_version)sql")),
      select_device_metrics(db.prepare(
          "SELECT name, value, unit, measured_at, blocktune_version FROM device_metrics WHERE device_id = ?1 "
          "ORDER BY name")) {}

Store Store::open(const std::filesystem::path& file) {
  auto db = sqlite::Connection::open(file, sqlite::Connection::Mode::read_write);
  int version = 0;
  {
    // Refuse foreign and newer files before anything below writes to them.
    sqlite::Transaction read(db, sqlite::Transaction::Kind::read);
    version = schema::check(db);
    read.commit();
  }
  // WAL: readers never block the writer nor wait for it. NORMAL sync: a
  // commit survives a crash of the process; a power cut may lose the last
  // few trials, which a resumed run measures again.
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON");
  if (version < schema::current_version) schema::migrate(db);  // takes the write lock only when needed
  return Store(std::make_unique<Impl>(std::move(db)));
}

Store::Store(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Store::Store(Store&&) noexcept = default;
Store& Store::operator=(Store&&) noexcept = default;
Store::~Store() = default;

const std::filesystem::path& Store::path() const { return impl_->db.path(); }

std::int64_t Store::upsert_device(const DeviceRecord& d) {
  require_valid(d);
  auto row = impl_->upsert_device.query(d.uuid, d.name, d.cc_major, d.cc_minor, d.sm_count, d.memory_bytes,
                                        d.l2_bytes, d.sm_clock_mhz, d.memory_clock_mhz, d.memory_bus_bits,
                                        d.driver_version, d.cuda_version, d.ecc);
  row.next();
  return row.int64(0);
}

std::int64_t Store::upsert_kernel(const KernelRecord& k) {
  require_valid(k);
  const auto shape = shape_columns(k.default_shape);
  auto row = impl_->upsert_kernel.query(k.name, k.source_hash, join_names(k.parameter_names), k.default_config, shape.x,
                                        shape.y, shape.z, shape.carveout, now(), k.counts_work);
  row.next();
  return row.int64(0);
}

std::int64_t Store::Impl::find_or_add_problem(std::int64_t kernel_id, const std::string& dims) {
  if (auto found = find_problem_id.query(kernel_id, dims); found.next()) return found.int64(0);
  auto added = insert_problem.query(kernel_id, dims);
  added.next();
  return added.int64(0);
}

std::int64_t Store::upsert_problem(std::int64_t kernel_id, const ProblemSize& problem) {
  require_valid(problem);
  return impl_->find_or_add_problem(kernel_id, problem.to_string());
}

std::vector<std::pair<std::int64_t, ProblemSize>> Store::measured_problems(std::int64_t device_id, std::int64_t kernel_id) const {
  std::vector<std::pair<std::int64_t, ProblemSize>> problems;
  for (auto row = impl_->measured_problems.query(device_id, kernel_id); row.next();)
    problems.emplace_back(row.int64(0), ProblemSize::parse(row.text(1)));
  return problems;
}

std::vector<TrialRecord> Store::trials(std::int64_t device_id, std::int64_t kernel_id,
                                       std::int64_t problem_id) const {
  std::vector<TrialRecord> trials;
  for (auto row = impl_->select_trials.query(device_id, kernel_id, problem_id); row.next();)
    trials.push_back(read_trial(row, 0, path()));
  return trials;
}

bool Store::has_trial(std::int64_t device_id, std::int64_t kernel_id, std::int64_t problem_id,
                      std::string_view config) const {
  return impl_->has_trial.query(device_id, kernel_id, problem_id, config).next();
}

void Store::Impl::write_trial(std::int64_t device_id, std::int64_t kernel_id, std::int64_t problem_id,
                              const TrialRecord& t) {
  const auto& block = t.shape.block;
  upsert_trial.run(device_id, kernel_id, problem_id, t.config, block[0], block[1], block[2], t.shape.carveout,
                   to_string(t.outcome), t.message, exact_text(t.samples_ms), t.median_ms, t.min_ms, t.mean_ms,
                   t.spread, t.registers, t.static_smem, t.dynamic_smem, t.local_bytes, t.spill_stores,
                   t.spill_loads, t.blocks_per_sm, t.occupancy, t.limiting_factor, t.compile_s, t.verify_s,
                   t.benchmark_s, t.timestamp != 0 ? t.timestamp : now(), t.blocktune_version, t.sm_clock_mhz,
                   t.metric, t.metric_unit, t.predicted_ms, t.steps_per_launch, t.l2_flushed ? 1 : 0, t.resident_warps);
}

void Store::add_trial(std::int64_t device_id, std::int64_t kernel_id, std::int64_t problem_id,
                      const TrialRecord& trial) {
  require_valid(trial);
  impl_->write_trial(device_id, kernel_id, problem_id, trial);  // one statement: its own transaction
}

std::optional<Winner> Store::Impl::recompute_winner(std::int64_t device_id, std::int64_t kernel_id,
                                                    std::int64_t problem_id, std::string_view default_text,
                                                    std::int64_t time_steps, std::optional<bool> l2_flushed) {
  // Fastest first, so that of equal plans the fastest launch wins.
  std::vector<std::int64_t> trial_ids;
  std::vector<StepLaunch> launches;
  const std::optional<int> flushed = l2_flushed ? std::optional(*l2_flushed ? 1 : 0) : std::nullopt;
  for (auto rows = ok_launches.query(device_id, kernel_id, problem_id, flushed); rows.next();) {
    trial_ids.push_back(rows.int64(0));
    launches.push_back({rows.text(1), LaunchShape{{rows.integer(2), rows.integer(3), rows.integer(4)}, rows.integer(5)},
                        rows.int64(6), rows.real(7)});
  }
  const auto ranked = best_step_plan(launches, time_steps);
  if (!ranked) {
    delete_winner.run(device_id, kernel_id, problem_id, time_steps);
    return std::nullopt;
  }
  Winner winner{ranked->best.main.config, ranked->best.main.shape, ranked->best.main.median_ms, 0, 0, time_steps, ranked->best};

  std::string default_name(default_text);
  if (default_name.empty())
    if (auto row = default_config.query(kernel_id); row.next()) default_name = row.text(0);
  double default_ms = 0;
  if (const auto found = std::ranges::find(launches, default_name, &StepLaunch::config); found != launches.end()) {
    if (const auto plan = plan_steps(*found, time_steps, fastest_by_depth(launches))) default_ms = plan->total_ms;
    learn_default_shape.run(kernel_id, default_name, found->shape.block[0], found->shape.block[1], found->shape.block[2],
                            found->shape.carveout);
  }
  winner.margin_runner_up = ranked->runner_up_ms / winner.plan.total_ms;
  winner.margin_default = default_ms / winner.plan.total_ms;
  upsert_winner.run(device_id, kernel_id, problem_id, time_steps, trial_ids[ranked->index], winner.plan.total_ms,
                    winner.margin_runner_up, winner.margin_default, now());
  return winner;
}

std::optional<Winner> Store::update_winner(std::int64_t device_id, std::int64_t kernel_id, std::int64_t problem_id,
                                           std::string_view default_config, std::int64_t time_steps,
                                           std::optional<bool> l2_flushed) {
  if (time_steps < 1) throw std::invalid_argument(fmt::format("{} time steps: a problem runs at least one", time_steps));
  sqlite::Transaction transaction(impl_->db);
  auto winner = impl_->recompute_winner(device_id, kernel_id, problem_id, default_config, time_steps, l2_flushed);
  transaction.commit();
  return winner;
}

void Store::set_device_metric(std::int64_t device_id, std::string_view name, double value, std::string_view unit) {
  const DeviceMetric metric{std::string(name), value, std::string(unit), now(), BLOCKTUNE_VERSION};
  require_valid(metric);
  impl_->upsert_device_metric.run(device_id, metric.name, metric.value, metric.unit, metric.measured_at,
                                  metric.blocktune_version);
}

std::vector<DeviceMetric> Store::device_metrics(std::int64_t device_id) const {
  std::vector<DeviceMetric> metrics;
  for (auto row = impl_->select_device_metrics.query(device_id); row.next();)
    metrics.push_back({row.text(0), row.real(1), row.text(2), row.int64(3), row.text(4)});
  return metrics;
}

void Store::set_arch_default(std::string_view kernel_name, int cc_major, int cc_minor, std::string_view config,
                             const LaunchShape& shape) {
  if (kernel_name.empty()) throw std::invalid_argument("architecture default without a kernel name");
  if (auto problem = find_problem_in_config(config)) throw std::invalid_argument(*problem);
  require_valid(shape);
  impl_->upsert_arch_default.run(kernel_name, cc_major, cc_minor, config, shape.block[0], shape.block[1],
                                 shape.block[2], shape.carveout);
}

}  // namespace blocktune
