// A thin RAII layer over the SQLite C API, private to db/. Every failure
// becomes a StoreError that names the file and says what is wrong with it.
#pragma once

#include <blocktune/db_types.hpp>

#include <sqlite3.h>

#include <concepts>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace blocktune::sqlite {

// How long a connection waits for another process's lock before failing.
inline constexpr int busy_timeout_ms = 10'000;

class Cursor;

class Statement {
 public:
  Statement(sqlite3_stmt* stmt, const class Connection* owner) : stmt_(stmt), owner_(owner) {}
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  ~Statement();

  // Binds the arguments to ?1, ?2, ... and returns a cursor over the rows.
  template <class... Args>
  Cursor query(const Args&... args);

  // Binds the arguments and runs the statement to completion.
  template <class... Args>
  void run(const Args&... args);

 private:
  friend class Cursor;
  void rebind();
  void bind_at(int index, std::int64_t value);
  void bind_at(int index, double value);
  void bind_at(int index, std::string_view value);
  void bind_at(int index, std::nullopt_t);
  template <class T>
  void bind_value(int index, const std::optional<T>& value) {
    value ? bind_value(index, *value) : bind_at(index, std::nullopt);
  }
  template <class T>
  void bind_value(int index, const T& value) {
    if constexpr (std::integral<T>) {
      bind_at(index, static_cast<std::int64_t>(value));
    } else if constexpr (std::floating_point<T>) {
      bind_at(index, static_cast<double>(value));
    } else {
      bind_at(index, std::string_view(value));
    }
  }

  sqlite3_stmt* stmt_ = nullptr;
  const Connection* owner_ = nullptr;
};

// The rows of one execution of a statement; resets the statement when it goes
// out of scope, so no read or write transaction is left open by accident.
class Cursor {
 public:
  explicit Cursor(Statement& statement) : statement_(&statement) {}
  Cursor(const Cursor&) = delete;
  Cursor& operator=(const Cursor&) = delete;
  ~Cursor();

  bool next();  // true while a row is available

  std::int64_t int64(int column) const { return sqlite3_column_int64(stmt(), column); }
  int integer(int column) const { return sqlite3_column_int(stmt(), column); }
  double real(int column) const { return sqlite3_column_double(stmt(), column); }
  bool is_null(int column) const { return sqlite3_column_type(stmt(), column) == SQLITE_NULL; }
  std::string_view text_view(int column) const;  // valid until the next row
  std::string text(int column) const { return std::string(text_view(column)); }

 private:
  sqlite3_stmt* stmt() const { return statement_->stmt_; }
  Statement* statement_;
};

class Connection {
 public:
  enum class Mode { read_only, read_write };

  // read_only requires an existing SQLite file and never writes to it nor
  // beside it where it may not: where the WAL index cannot be created, it
  // opens the file immutable (see open_immutable). read_write creates the
  // file and its folder if missing but refuses a file that is not SQLite.
  static Connection open(const std::filesystem::path& file, Mode mode);

  Connection(Connection&& other) noexcept;
  Connection& operator=(Connection&& other) noexcept;
  ~Connection();

  void exec(const char* sql) const;  // statements without result rows
  void exec_quietly(const char* sql) const noexcept;  // for clean-up, where failing is no worse
  Statement prepare(std::string_view sql) const;
  const std::filesystem::path& path() const { return path_; }

  // Throws StoreError: "tuning database 'F' is corrupt or truncated (doing: sqlite message)".
  [[noreturn]] void fail(int code, std::string_view doing) const;

 private:
  Connection(sqlite3* db, std::filesystem::path path) : db_(db), path_(std::move(path)) {}
  static Connection open_v2(const std::filesystem::path& file, const std::string& name, int flags);
  static Connection open_immutable(const std::filesystem::path& file);
  void check_header() const;  // throws StoreError unless the file is empty or starts with the SQLite header
  int probe() const;  // reads the schema: the first access to the file and its WAL
  sqlite3* db_ = nullptr;
  std::filesystem::path path_;
};

// BEGIN IMMEDIATE (or a deferred BEGIN for a consistent read snapshot);
// rolls back unless committed.
class Transaction {
 public:
  enum class Kind { read, write };
  explicit Transaction(const Connection& db, Kind kind = Kind::write);
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();
  void commit();

 private:
  const Connection* db_;
  bool open_ = true;
};

// "tuning database 'F'": how every message starts.
std::string quoted(const std::filesystem::path& file);

template <class... Args>
Cursor Statement::query(const Args&... args) {
  rebind();
  int index = 0;
  (bind_value(++index, args), ...);
  return Cursor(*this);
}

template <class... Args>
void Statement::run(const Args&... args) {
  Cursor rows = query(args...);
  while (rows.next()) {
  }
}

}  // namespace blocktune::sqlite
