#include "schema.hpp"

#include <fmt/format.h>

#include <array>
#include <string>
#include <string_view>

namespace blocktune::schema {
namespace {

// migrations[v] brings a database from schema version v to v + 1. Plain
// tables (not STRICT) so that SQLite releases older than 3.37 can read them.
constexpr std::array<const char*, 3> sql_migrations{
    R"sql(
CREATE TABLE devices (
  id               INTEGER PRIMARY KEY,
  uuid             TEXT    NOT NULL UNIQUE CHECK (uuid <> ''),
  name             TEXT    NOT NULL,
  cc_major         INTEGER NOT NULL,
  cc_minor         INTEGER NOT NULL,
  sm_count         INTEGER NOT NULL,
  memory_bytes     INTEGER NOT NULL,
  l2_bytes         INTEGER NOT NULL,
  sm_clock_mhz     INTEGER NOT NULL,
  memory_clock_mhz INTEGER NOT NULL,
  memory_bus_bits  INTEGER NOT NULL,
  driver_version   INTEGER NOT NULL,
  cuda_version     INTEGER NOT NULL,
  ecc              INTEGER NOT NULL CHECK (ecc IN (0, 1))
);

-- One row per kernel source version: a new source hash is a new kernel.
CREATE TABLE kernels (
  id               INTEGER PRIMARY KEY,
  name             TEXT    NOT NULL CHECK (name <> ''),
  source_hash      TEXT    NOT NULL,
  parameter_names  TEXT    NOT NULL,  -- comma-separated, in config order
  default_config   TEXT    NOT NULL,  -- '' when the kernel has none
  default_block_x  INTEGER CHECK (default_block_x >= 1),  -- default shape: NULL while unknown
  default_block_y  INTEGER CHECK (default_block_y >= 1),
  default_block_z  INTEGER CHECK (default_block_z >= 1),
  default_carveout INTEGER CHECK (default_carveout BETWEEN -1 AND 100),
  created_at       INTEGER NOT NULL,  -- unix seconds; the newest version answers queries
  UNIQUE (name, source_hash)
);

CREATE TABLE problems (
  id        INTEGER PRIMARY KEY,
  kernel_id INTEGER NOT NULL REFERENCES kernels (id),
  dims      TEXT    NOT NULL,  -- "512x512x512"
  UNIQUE (kernel_id, dims)
);

CREATE TABLE trials (
  id                INTEGER PRIMARY KEY,
  device_id         INTEGER NOT NULL REFERENCES devices (id),
  kernel_id         INTEGER NOT NULL REFERENCES kernels (id),
  problem_id        INTEGER NOT NULL REFERENCES problems (id),
  config            TEXT    NOT NULL CHECK (config <> ''),
  block_x           INTEGER NOT NULL CHECK (block_x >= 1),
  block_y           INTEGER NOT NULL CHECK (block_y >= 1),
  block_z           INTEGER NOT NULL CHECK (block_z >= 1),
  carveout          INTEGER NOT NULL CHECK (carveout BETWEEN -1 AND 100),
  outcome           TEXT    NOT NULL CHECK (outcome IN ('ok', 'compile_error', 'launch_error', 'runtime_fault',
                                      'timeout', 'wrong_result', 'rejected_by_constraint', 'pruned_by_occupancy')),
  message           TEXT    NOT NULL,
  samples_ms        TEXT    NOT NULL,  -- space-separated, shortest round-trip decimals
  median_ms         REAL    NOT NULL,
  min_ms            REAL    NOT NULL,
  mean_ms           REAL    NOT NULL,
  spread            REAL    NOT NULL,
  registers         INTEGER NOT NULL,
  static_smem       INTEGER NOT NULL,
  dynamic_smem      INTEGER NOT NULL,
  local_bytes       INTEGER NOT NULL,
  spill_stores      INTEGER NOT NULL,
  spill_loads       INTEGER NOT NULL,
  blocks_per_sm     INTEGER NOT NULL,
  occupancy         REAL    NOT NULL,
  limiting_factor   TEXT    NOT NULL,
  compile_s         REAL    NOT NULL,
  verify_s          REAL    NOT NULL,
  benchmark_s       REAL    NOT NULL,
  timestamp         INTEGER NOT NULL,
  blocktune_version TEXT    NOT NULL,
  sm_clock_mhz      INTEGER NOT NULL,
  metric            REAL    NOT NULL,
  metric_unit       TEXT    NOT NULL,
  UNIQUE (device_id, kernel_id, problem_id, config)  -- the resume key
);

-- Derived from trials by Store::update_winner; what TuningDatabase answers from.
CREATE TABLE winners (
  device_id        INTEGER NOT NULL REFERENCES devices (id),
  kernel_id        INTEGER NOT NULL REFERENCES kernels (id),
  problem_id       INTEGER NOT NULL REFERENCES problems (id),
  trial_id         INTEGER NOT NULL REFERENCES trials (id),
  margin_runner_up REAL    NOT NULL,  -- runner-up time / winner time, 0 when unknown
  margin_default   REAL    NOT NULL,  -- default config time / winner time, 0 when unknown
  updated_at       INTEGER NOT NULL,
  PRIMARY KEY (device_id, kernel_id, problem_id)
) WITHOUT ROWID;

-- The occupancy-chosen default per architecture, for GPUs never tuned.
CREATE TABLE arch_defaults (
  kernel_name TEXT    NOT NULL,
  cc_major    INTEGER NOT NULL,
  cc_minor    INTEGER NOT NULL,
  config      TEXT    NOT NULL,
  block_x     INTEGER NOT NULL CHECK (block_x >= 1),
  block_y     INTEGER NOT NULL CHECK (block_y >= 1),
  block_z     INTEGER NOT NULL CHECK (block_z >= 1),
  carveout    INTEGER NOT NULL CHECK (carveout BETWEEN -1 AND 100),
  PRIMARY KEY (kernel_name, cc_major, cc_minor)
) WITHOUT ROWID;
)sql",
    // 1 -> 2: measurements of a device that are not trials, e.g. its copy bandwidth.
    R"sql(
CREATE TABLE device_metrics (
  device_id         INTEGER NOT NULL REFERENCES devices (id),
  name              TEXT    NOT NULL CHECK (name <> ''),  -- e.g. copy_bandwidth_gbs
  value             REAL    NOT NULL,
  unit              TEXT    NOT NULL,                     -- e.g. GB/s
  measured_at       INTEGER NOT NULL,                     -- unix seconds
  blocktune_version TEXT    NOT NULL,
  PRIMARY KEY (device_id, name)  -- the latest measurement only
) WITHOUT ROWID;
)sql",
    // 2 -> 3: the execution-time model's prediction for each measured trial;
    // NULL where there was none (every trial measured before version 3).
    R"sql(
ALTER TABLE trials ADD COLUMN predicted_ms REAL CHECK (predicted_ms > 0);
)sql",
};

// 3 -> 4: the outcome 'compile_timeout'. SQLite cannot change a CHECK
// constraint in place, so the trials table is rebuilt from its own stored
// definition with the longer list (foreign keys are off meanwhile: see migrate).
std::string table_definition(const sqlite::Connection& db, std::string_view table) {
  auto definition = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?1");
  auto row = definition.query(table);
  if (!row.next()) throw StoreError(sqlite::quoted(db.path()) + fmt::format(": it has no table '{}'", table));
  return std::string(row.text(0));
}  // the statement ends here: a table it read cannot be dropped while it is open

void add_compile_timeout_outcome(const sqlite::Connection& db) {
  std::string sql = table_definition(db, "trials");
  constexpr std::string_view last_outcome = "'pruned_by_occupancy')";
  const auto at = sql.find(last_outcome);
  const auto name = sql.find("trials");
  if (at == std::string::npos || name == std::string::npos)
    throw StoreError(sqlite::quoted(db.path()) + ": the trials table does not have the expected definition");
  sql.replace(at, last_outcome.size(), "'pruned_by_occupancy', 'compile_timeout')");
  sql.replace(name, 6, "trials_v4");
  db.exec(sql.c_str());
  db.exec("INSERT INTO trials_v4 SELECT * FROM trials; DROP TABLE trials; ALTER TABLE trials_v4 RENAME TO trials;");
}

// 4 -> 5: time steps. A trial says how many steps one launch advances (1 for
// every trial before), and winners are stored per number of time steps (the
// old ones are the winners for one step).
constexpr const char* time_steps_migration = R"sql(
ALTER TABLE trials ADD COLUMN steps_per_launch INTEGER NOT NULL DEFAULT 1 CHECK (steps_per_launch >= 1);
CREATE TABLE winners_v5 (
  device_id        INTEGER NOT NULL REFERENCES devices (id),
  kernel_id        INTEGER NOT NULL REFERENCES kernels (id),
  problem_id       INTEGER NOT NULL REFERENCES problems (id),
  time_steps       INTEGER NOT NULL CHECK (time_steps >= 1),
  trial_id         INTEGER NOT NULL REFERENCES trials (id),  -- the main launch
  total_ms         REAL    NOT NULL,  -- time for time_steps steps, the remainder's launches included
  margin_runner_up REAL    NOT NULL,  -- runner-up total / winner total, 0 when unknown
  margin_default   REAL    NOT NULL,  -- default config total / winner total, 0 when unknown
  updated_at       INTEGER NOT NULL,
  PRIMARY KEY (device_id, kernel_id, problem_id, time_steps)
) WITHOUT ROWID;
INSERT INTO winners_v5
  SELECT w.device_id, w.kernel_id, w.problem_id, 1, w.trial_id, t.median_ms, w.margin_runner_up, w.margin_default, w.updated_at
  FROM winners w JOIN trials t ON t.id = w.trial_id;
DROP TABLE winners;
ALTER TABLE winners_v5 RENAME TO winners;
)sql";

// 5 -> 6: whether a kernel's spec counts its work, which decides how a search
// uses the model's predictions of it (ModelScores::count_work); NULL where a
// kernel was registered before version 6.
constexpr const char* counts_work_migration = R"sql(
ALTER TABLE kernels ADD COLUMN counts_work INTEGER CHECK (counts_work IN (0, 1));
)sql";

// 6 -> 7: whether a trial's timed launches each followed an L2 flush (tune's
// default from this version on); every trial before was timed with the L2 as
// the previous launch left it.
constexpr const char* l2_flushed_migration = R"sql(
ALTER TABLE trials ADD COLUMN l2_flushed INTEGER NOT NULL DEFAULT 0 CHECK (l2_flushed IN (0, 1));
)sql";

// 7 -> 8: the warps a trial's launch kept resident on an SM (the search learns
// how fast each count is: ModelScores::resident_warps); NULL where not known,
// as for every trial before (the launch's grid is not stored).
constexpr const char* resident_warps_migration = R"sql(
ALTER TABLE trials ADD COLUMN resident_warps INTEGER CHECK (resident_warps BETWEEN 0 AND 64);
)sql";

void apply_migration(const sqlite::Connection& db, int from_version) {
  if (from_version < static_cast<int>(sql_migrations.size())) {
    db.exec(sql_migrations[static_cast<std::size_t>(from_version)]);
  } else if (from_version + 1 == compile_timeout_version) {
    add_compile_timeout_outcome(db);
  } else if (from_version + 1 == time_steps_version) {
    db.exec(time_steps_migration);
  } else if (from_version + 1 == counts_work_version) {
    db.exec(counts_work_migration);
  } else if (from_version + 1 == l2_flushed_version) {
    db.exec(l2_flushed_migration);
  } else {
    db.exec(resident_warps_migration);
  }
}

}  // namespace

void migrate(const sqlite::Connection& db) {
  // Rebuilding a table that others reference needs foreign keys off, which
  // can only be switched outside a transaction; foreign_key_check below
  // checks what they would have.
  struct ForeignKeysOff {
    const sqlite::Connection& db;
    explicit ForeignKeysOff(const sqlite::Connection& connection) : db(connection) { db.exec("PRAGMA foreign_keys = OFF"); }
    ~ForeignKeysOff() { db.exec_quietly("PRAGMA foreign_keys = ON"); }
  } foreign_keys_off(db);
  sqlite::Transaction transaction(db);
  // Checked under the write lock: another process may have migrated meanwhile.
  int version = check(db);
  if (version == current_version) return;  // nothing to write
  for (; version < current_version; ++version) apply_migration(db, version);
  if (auto violations = db.prepare("PRAGMA foreign_key_check"); violations.query().next())
    throw StoreError(sqlite::quoted(db.path()) + ": migrating it would break its references between tables; it was left unchanged");
  db.exec(("PRAGMA application_id = " + std::to_string(application_id)).c_str());
  db.exec(("PRAGMA user_version = " + std::to_string(current_version)).c_str());
  transaction.commit();
}

}  // namespace blocktune::schema
