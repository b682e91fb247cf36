#include "sqlite.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <system_error>
#include <utility>

namespace blocktune::sqlite {
namespace {

// What an SQLite result code means for the person who owns the file.
std::string_view explain(int code) {
  switch (code & 0xff) {
    case SQLITE_NOTADB: return "is not a SQLite database";
    case SQLITE_CORRUPT: return "is corrupt or truncated";
    case SQLITE_BUSY:
    case SQLITE_LOCKED: return "stayed locked by another process for too long";
    case SQLITE_CANTOPEN: return "cannot be opened";
    case SQLITE_READONLY: return "is read-only";
    case SQLITE_PERM:
    case SQLITE_AUTH: return "cannot be accessed (permission denied)";
    case SQLITE_FULL: return "cannot grow: the disk is full";
    case SQLITE_IOERR: return "could not be read or written (I/O error)";
    case SQLITE_CONSTRAINT: return "refused a record that breaks its constraints";
    default: return "failed";
  }
}

// Checks what SQLite cannot say clearly: that the file exists, can be read
// and is not empty. An empty file is only acceptable when creating (SQLite
// turns it into a new database). Without opening it: see check_header.
void check_file(const std::filesystem::path& file, Connection::Mode mode) {
  std::error_code error;
  const auto status = std::filesystem::status(file, error);
  if (!std::filesystem::exists(status)) {
    if (mode == Connection::Mode::read_only) throw StoreError(quoted(file) + " does not exist");
    return;
  }
  if (std::filesystem::is_directory(status)) throw StoreError(quoted(file) + " is a directory, not a database file");
  if (::faccessat(AT_FDCWD, file.c_str(), R_OK, AT_EACCESS) != 0)
    throw StoreError(quoted(file) + " cannot be read (" + std::strerror(errno) + ")");
  if (mode == Connection::Mode::read_only && std::filesystem::file_size(file, error) == 0 && !error)
    throw StoreError(quoted(file) + " is empty (0 bytes)");
}

// "file:PATH?immutable=1", PATH percent-encoded where URI syntax needs it.
std::string immutable_uri(const std::filesystem::path& file) {
  std::string uri = "file:";
  for (const char c : std::filesystem::absolute(file).string()) {
    constexpr std::string_view hex = "0123456789ABCDEF";
    const auto byte = static_cast<unsigned char>(c);
    if (c == '%' || c == '?' || c == '#')
      uri += {'%', hex[byte >> 4], hex[byte & 15]};
    else
      uri += c;
  }
  return uri + "?immutable=1";
}

// The errors of a read-only WAL connection that cannot create the WAL index
// (-shm): a read-only folder or file system, a folder of another user.
bool cannot_create_wal_index(int code) {
  return code == SQLITE_READONLY_CANTINIT || code == SQLITE_READONLY_DIRECTORY || (code & 0xff) == SQLITE_CANTOPEN;
}

}  // namespace

std::string quoted(const std::filesystem::path& file) { return "tuning database '" + file.string() + "'"; }

// ---- Connection ----

Connection Connection::open(const std::filesystem::path& file, Mode mode) {
  check_file(file, mode);
  if (mode == Mode::read_write && file.has_parent_path()) {
    std::error_code error;
    std::filesystem::create_directories(file.parent_path(), error);
    if (error) throw StoreError(quoted(file) + ": cannot create its folder: " + error.message());
  }
  const int flags = mode == Mode::read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  Connection connection = open_v2(file, file.string(), flags);
  connection.check_header();
  if (mode == Mode::read_only && cannot_create_wal_index(connection.probe())) return open_immutable(file);
  return connection;
}

Connection Connection::open_v2(const std::filesystem::path& file, const std::string& name, int flags) {
  sqlite3* db = nullptr;
  const int code = sqlite3_open_v2(name.c_str(), &db, flags, nullptr);
  Connection connection(db, file);  // closes db even when opening failed
  if (code != SQLITE_OK) connection.fail(code, "opening");
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, busy_timeout_ms);
  return connection;
}

// Through SQLite's own file descriptor, never a second one: closing another
// descriptor of the file would drop all of this process's POSIX locks on it,
// which its other connections to the file still rely on (a writer elsewhere
// would then take this process for gone, checkpoint and delete the WAL under
// it: "database disk image is malformed"; sqlite.org/howtocorrupt.html, 2.2).
void Connection::check_header() const {
  sqlite3_file* handle = nullptr;
  if (sqlite3_file_control(db_, "main", SQLITE_FCNTL_FILE_POINTER, &handle) != SQLITE_OK || !handle || !handle->pMethods)
    return;  // not a file SQLite reads itself: nothing to check
  sqlite3_int64 size = 0;
  if (handle->pMethods->xFileSize(handle, &size) != SQLITE_OK || size == 0) return;  // an empty file is created
  constexpr std::string_view magic{"SQLite format 3\0", 16};
  std::array<char, magic.size()> header{};
  const int code = handle->pMethods->xRead(handle, header.data(), static_cast<int>(header.size()), 0);
  if (code == SQLITE_IOERR_SHORT_READ || (code == SQLITE_OK && std::string_view(header.data(), header.size()) != magic))
    throw StoreError(quoted(path_) + " is not a SQLite database (it does not start with the SQLite header)");
  if (code != SQLITE_OK) fail(code, "reading the header");
}

int Connection::probe() const { return sqlite3_exec(db_, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr); }

// Immutable: SQLite reads the main file alone, with no locks and no WAL. Safe
// for a database nobody writes (an installed, read-only one); on a database
// another process is writing it may read stale or half-written pages. Changes
// still in a write-ahead log would be missed, so a non-empty -wal is refused.
Connection Connection::open_immutable(const std::filesystem::path& file) {
  auto wal = file;
  wal += "-wal";
  std::error_code error;
  if (std::filesystem::file_size(wal, error) > 0 && !error)
    throw StoreError(quoted(file) + " cannot be read: its write-ahead log '" + wal.string() +
                     "' holds changes, and reading them needs '" + file.string() +
                     "-shm', which this user cannot create; let a user who may write to its folder run "
                     "`sqlite3 '" + file.string() + "' 'PRAGMA wal_checkpoint(TRUNCATE)'`");
  return open_v2(file, immutable_uri(file), SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
}

Connection::Connection(Connection&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)), path_(std::move(other.path_)) {}

Connection& Connection::operator=(Connection&& other) noexcept {
  std::swap(db_, other.db_);
  std::swap(path_, other.path_);
  return *this;
}

Connection::~Connection() { sqlite3_close_v2(db_); }

void Connection::exec(const char* sql) const {
  if (const int code = sqlite3_exec(db_, sql, nullptr, nullptr, nullptr); code != SQLITE_OK) fail(code, sql);
}

void Connection::exec_quietly(const char* sql) const noexcept { sqlite3_exec(db_, sql, nullptr, nullptr, nullptr); }

Statement Connection::prepare(std::string_view sql) const {
  sqlite3_stmt* stmt = nullptr;
  const int code = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT,
                                      &stmt, nullptr);
  if (code != SQLITE_OK) fail(code, "preparing a query");
  return Statement(stmt, this);
}

void Connection::fail(int code, std::string_view doing) const {
  std::string message = quoted(path_);
  message += ' ';
  message += explain(code);
  message += " (";
  message += doing;
  message += ": ";
  message += db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(code);
  message += ')';
  throw StoreError(message);
}

// ---- Statement and Cursor ----

Statement::Statement(Statement&& other) noexcept
    : stmt_(std::exchange(other.stmt_, nullptr)), owner_(other.owner_) {}

Statement& Statement::operator=(Statement&& other) noexcept {
  std::swap(stmt_, other.stmt_);
  std::swap(owner_, other.owner_);
  return *this;
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

void Statement::rebind() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

void Statement::bind_at(int index, std::int64_t value) {
  if (const int code = sqlite3_bind_int64(stmt_, index, value); code != SQLITE_OK) owner_->fail(code, "binding");
}

void Statement::bind_at(int index, double value) {
  if (const int code = sqlite3_bind_double(stmt_, index, value); code != SQLITE_OK) owner_->fail(code, "binding");
}

void Statement::bind_at(int index, std::string_view value) {
  const int code =
      sqlite3_bind_text64(stmt_, index, value.data(), value.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  if (code != SQLITE_OK) owner_->fail(code, "binding");
}

void Statement::bind_at(int index, std::nullopt_t) {
  if (const int code = sqlite3_bind_null(stmt_, index); code != SQLITE_OK) owner_->fail(code, "binding");
}

Cursor::~Cursor() { sqlite3_reset(stmt()); }

bool Cursor::next() {
  const int code = sqlite3_step(stmt());
  if (code == SQLITE_ROW) return true;
  if (code == SQLITE_DONE) return false;
  statement_->owner_->fail(code, sqlite3_sql(stmt()));
}

std::string_view Cursor::text_view(int column) const {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt(), column));
  return text ? std::string_view(text, static_cast<std::size_t>(sqlite3_column_bytes(stmt(), column)))
              : std::string_view();
}

// ---- Transaction ----

Transaction::Transaction(const Connection& db, Kind kind) : db_(&db) {
  // IMMEDIATE takes the write lock up front: upgrading a read transaction
  // later can fail with SQLITE_BUSY without waiting.
  db.exec(kind == Kind::write ? "BEGIN IMMEDIATE" : "BEGIN");
}

Transaction::~Transaction() {
  if (open_) db_->exec_quietly("ROLLBACK");
}

void Transaction::commit() {
  db_->exec("COMMIT");
  open_ = false;
}

}  // namespace blocktune::sqlite
