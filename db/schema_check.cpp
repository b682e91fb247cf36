#include "schema.hpp"

#include <string>

namespace blocktune::schema {
namespace {

std::int64_t pragma_value(const sqlite::Connection& db, std::string_view sql) {
  sqlite::Statement statement = db.prepare(sql);
  sqlite::Cursor row = statement.query();
  return row.next() ? row.int64(0) : 0;
}

}  // namespace

int check(const sqlite::Connection& db) {
  const auto id = pragma_value(db, "PRAGMA application_id");
  const auto version = pragma_value(db, "PRAGMA user_version");
  if (id == application_id) {
    if (version > current_version)
      throw StoreError(sqlite::quoted(db.path()) + " was written by a newer blocktune (schema version " +
                       std::to_string(version) + ", this build reads up to version " +
                       std::to_string(current_version) + "): update blocktune");
    return static_cast<int>(version);
  }
  if (id == 0 && version == 0 && pragma_value(db, "SELECT count(*) FROM sqlite_master") == 0) return 0;
  throw StoreError(sqlite::quoted(db.path()) + " is a SQLite database of another application, not a blocktune tuning database");
}

int require_tuning_database(const sqlite::Connection& db) {
  const int version = check(db);
  if (version == 0)
    throw StoreError(sqlite::quoted(db.path()) + " is an empty SQLite database, not a blocktune tuning database");
  return version;
}

}  // namespace blocktune::schema
