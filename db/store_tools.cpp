// Read-only tools: what a database holds, and whether it is healthy.
#include "store_impl.hpp"

#include "schema.hpp"

#include <fmt/format.h>

#include <map>
#include <tuple>

namespace blocktune {

namespace {

// Every session with its counts and winner, in the order DatabaseSummary documents.
int schema_version(const sqlite::Connection& db) {
  auto user_version = db.prepare("PRAGMA user_version");
  auto row = user_version.query();
  return row.next() ? row.integer(0) : 0;
}

std::vector<SessionSummary> read_sessions(const sqlite::Connection& db) {
  const int version = schema_version(db);
  // Readers do not migrate: before version 5 a session has one winner, for one step.
  const std::string_view single_step = version >= schema::time_steps_version ? "AND w.time_steps = 1" : "";
  auto sessions = db.prepare(fmt::format(R"sql(
    SELECT d.uuid, d.name, k.name, k.source_hash, p.dims, s.trials, s.ok_trials,
           t.config, t.block_x, t.block_y, t.block_z, t.carveout, t.median_ms, w.margin_runner_up, w.margin_default
    FROM (SELECT device_id, kernel_id, problem_id, count(*) AS trials, sum(outcome = 'ok') AS ok_trials
          FROM trials GROUP BY device_id, kernel_id, problem_id) s
    JOIN devices d ON d.id = s.device_id
    JOIN kernels k ON k.id = s.kernel_id
    JOIN problems p ON p.id = s.problem_id
    LEFT JOIN winners w ON w.device_id = s.device_id AND w.kernel_id = s.kernel_id AND w.problem_id = s.problem_id
                           {}
    LEFT JOIN trials t ON t.id = w.trial_id
    ORDER BY k.name, k.created_at, d.name, d.uuid, p.id)sql", single_step));
  std::vector<SessionSummary> summaries;
  for (auto row = sessions.query(); row.next();) {
    SessionSummary& s = summaries.emplace_back();
    s.device_uuid = row.text(0);
    s.device_name = row.text(1);
    s.kernel = row.text(2);
    s.source_hash = row.text(3);
    try {
      s.problem = ProblemSize::parse(row.text_view(4));
    } catch (const std::invalid_argument& invalid) {
      throw StoreError(sqlite::quoted(db.path()) + " holds an invalid " + invalid.what());
    }
    s.trials = row.int64(5);
    s.ok_trials = row.int64(6);
    if (!row.is_null(7)) {
      const StepLaunch main{row.text(7), LaunchShape{{row.integer(8), row.integer(9), row.integer(10)}, row.integer(11)}, 1, row.real(12)};
      s.winner = Winner{main.config, main.shape, main.median_ms, row.real(13), row.real(14), 1, StepPlan{main, 1, {}, main.median_ms}};
    }
  }
  return summaries;
}

}  // namespace

DatabaseSummary summarize_database(const std::filesystem::path& file) {
  const ReadSession session(file);
  const auto& db = session.db;
  DatabaseSummary summary;
  {
    auto version = db.prepare("PRAGMA user_version");
    auto row = version.query();
    row.next();
    summary.schema_version = row.integer(0);
  }
  std::error_code error;
  summary.file_bytes = std::filesystem::file_size(file, error);

  Dump dump = read_dump(db);
  summary.trials = static_cast<std::int64_t>(dump.trials.size());
  summary.devices = std::move(dump.devices);
  for (auto& kernel : dump.kernels) summary.kernels.push_back(std::move(kernel.record));
  summary.sessions = read_sessions(db);
  return summary;
}

DatabaseContents read_database(const std::filesystem::path& file) {
  const ReadSession session(file);
  Dump dump = read_dump(session.db);
  DatabaseContents contents;
  contents.devices = std::move(dump.devices);
  for (auto& [uuid, metric] : dump.device_metrics) contents.device_metrics[uuid].push_back(std::move(metric));
  for (auto& kernel : dump.kernels) contents.kernels.push_back(std::move(kernel.record));

  // read_dump keeps the measurement order; group the trials by session.
  using SessionKey = std::tuple<std::string, std::string, std::string, std::string>;
  std::map<SessionKey, std::vector<TrialRecord>> trials;
  for (auto& t : dump.trials)
    trials[{t.device_uuid, t.kernel_name, t.source_hash, t.problem.to_string()}].push_back(std::move(t.record));
  for (auto& summary : read_sessions(session.db)) {
    auto& found = trials[{summary.device_uuid, summary.kernel, summary.source_hash, summary.problem.to_string()}];
    contents.sessions.push_back({std::move(summary), std::move(found)});
  }
  return contents;
}

CheckReport check_database(const std::filesystem::path& file) {
  const ReadSession session(file);
  const auto& db = session.db;
  CheckReport report;
  // Each query yields one finding per row, in its first column.
  const auto collect = [&](std::vector<std::string>& findings, std::string_view sql) {
    auto statement = db.prepare(sql);
    for (auto row = statement.query(); row.next();) findings.push_back(row.text(0));
  };

  auto integrity = db.prepare("PRAGMA integrity_check");
  for (auto row = integrity.query(); row.next();)
    if (row.text_view(0) != "ok") report.errors.push_back("storage: " + row.text(0));
  auto foreign_keys = db.prepare("PRAGMA foreign_key_check");
  for (auto row = foreign_keys.query(); row.next();)
    report.errors.push_back(fmt::format("table {} row {} refers to a missing row of {}", row.text_view(0),
                                        row.int64(1), row.text_view(2)));

  collect(report.errors,
          "SELECT 'trial ' || t.id || ' belongs to kernel ' || t.kernel_id || ' but its problem to kernel ' || "
          "p.kernel_id FROM trials t JOIN problems p ON p.id = t.problem_id WHERE p.kernel_id <> t.kernel_id");
  collect(report.errors,
          "SELECT 'trial ' || id || ' (' || config || ') is ok but has no positive median time' FROM trials "
          "WHERE outcome = 'ok' AND NOT median_ms > 0");
  collect(report.errors,
          "SELECT 'session ' || w.device_id || '/' || w.kernel_id || '/' || w.problem_id || "
          "' has a winner that is not one of its ok trials' FROM winners w LEFT JOIN trials t ON t.id = w.trial_id "
          "WHERE t.id IS NULL OR t.outcome <> 'ok' OR t.device_id <> w.device_id OR t.kernel_id <> w.kernel_id "
          "OR t.problem_id <> w.problem_id");

  // Left by an interrupted run or an external edit; the next update_winner,
  // tuning run or import of that session fixes them.
  constexpr std::string_view session_name =
      "(SELECT name FROM devices WHERE id = s.device_id) || ' / ' || (SELECT name FROM kernels WHERE id = "
      "s.kernel_id) || ' / ' || (SELECT dims FROM problems WHERE id = s.problem_id)";
  collect(report.warnings,
          fmt::format("SELECT {} || ': ok trials but no winner stored' FROM (SELECT DISTINCT device_id, kernel_id, "
                      "problem_id FROM trials WHERE outcome = 'ok') s LEFT JOIN winners w USING (device_id, "
                      "kernel_id, problem_id) WHERE w.trial_id IS NULL",
                      session_name));
  // Winners for more time steps are plans (time_steps.hpp), not checked here.
  const bool steps = schema_version(db) >= schema::time_steps_version;
  collect(report.warnings,
          fmt::format("SELECT {} || ': the stored winner for one time step is not the fastest ok single-step trial' FROM winners s "
                      "JOIN trials t ON t.id = s.trial_id WHERE {} t.median_ms > (SELECT min(median_ms) FROM trials o "
                      "WHERE o.device_id = s.device_id AND o.kernel_id = s.kernel_id AND o.problem_id = s.problem_id "
                      "AND o.outcome = 'ok' {})",
                      session_name, steps ? "s.time_steps = 1 AND" : "", steps ? "AND o.steps_per_launch = 1" : ""));
  return report;
}

}  // namespace blocktune
