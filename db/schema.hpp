// The database schema: version, identity, and (in blocktune_db) migrations.
#pragma once

#include "sqlite.hpp"

#include <cstdint>

namespace blocktune::schema {

// PRAGMA user_version: bump it and add a migration for every schema change.
inline constexpr int current_version = 8;
// The first version with the device_metrics table.
inline constexpr int device_metrics_version = 2;
// The first version with trials.predicted_ms.
inline constexpr int predicted_ms_version = 3;
// The first version whose trials may have the outcome 'compile_timeout'.
inline constexpr int compile_timeout_version = 4;
// The first version with trials.steps_per_launch and winners per time steps.
inline constexpr int time_steps_version = 5;
// The first version with kernels.counts_work.
inline constexpr int counts_work_version = 6;
// The first version with trials.l2_flushed.
inline constexpr int l2_flushed_version = 7;
// The first version with trials.resident_warps.
inline constexpr int resident_warps_version = 8;
// PRAGMA application_id, "BTUN": tells a blocktune database from other SQLite files.
inline constexpr std::int32_t application_id = 0x4254554E;

// Inside a transaction: the schema version of the database, 0 for a SQLite
// file with no tables at all. Throws StoreError for a SQLite file of another
// application, or one written by a newer blocktune.
int check(const sqlite::Connection& db);

// check() for readers: a SQLite file without tables is an error as well.
// Returns the schema version.
int require_tuning_database(const sqlite::Connection& db);

// Creates the schema in a new database or migrates an older one to
// current_version, in one write transaction.
void migrate(const sqlite::Connection& db);

}  // namespace blocktune::schema
