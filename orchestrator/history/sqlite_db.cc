#include "history/sqlite_db.h"

#include <chrono>
#include <filesystem>
#include <thread>

namespace storbed {

namespace {
// Long enough for another run's import (one transaction) to finish on a slow disk.
constexpr int kBusyTimeoutMs = 60000;

// SQLite's I/O, space, permission and locking failures are the host's; anything else is
// about the file's contents (not a database, corrupt, another program's schema): bad input.
ErrorKind SqliteKind(int code) {
  switch (code & 0xff) {  // the primary code of an extended one (SQLITE_IOERR_READ)
    case SQLITE_IOERR:
    case SQLITE_FULL:
    case SQLITE_CANTOPEN:
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_NOMEM:
    case SQLITE_NOLFS:
    case SQLITE_PROTOCOL:
      return ErrorKind::Host;
    default:
      return ErrorKind::BadInput;
  }
}

// Why `path` could not be opened: a directory, or a path whose folder does not exist, is the
// user's slip (bad input); otherwise SQLite's code says whose it is.
ErrorKind OpenFailureKind(const std::string& path, int code) {
  std::error_code ec;
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  if (std::filesystem::is_directory(path, ec) ||
      !std::filesystem::is_directory(folder.empty() ? "." : folder, ec))
    return ErrorKind::BadInput;
  return SqliteKind(code);
}
}  // namespace

SqliteDb::SqliteDb(const std::string& path, Mode mode) : path_(path) {
  const int flags = mode == Mode::ReadOnly ? SQLITE_OPEN_READONLY
                                           : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  if (const int rc = sqlite3_open_v2(path.c_str(), &db_, flags, nullptr); rc != SQLITE_OK) {
    const std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw HistoryError(path + ": cannot open the history database: " + why,
                       OpenFailureKind(path, rc));
  }
  sqlite3_busy_timeout(db_, kBusyTimeoutMs);
  try {
    // Reading the schema is the first thing that notices a file that is no database.
    Exec("SELECT count(*) FROM sqlite_master");
    Exec("PRAGMA foreign_keys=ON");
  } catch (...) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw;
  }
}

SqliteDb::~SqliteDb() { sqlite3_close(db_); }

void SqliteDb::Fail(const std::string& what) const {
  const int code = sqlite3_extended_errcode(db_);
  const std::string message = path_ + ": " + what + ": " + sqlite3_errmsg(db_);
  if (code == SQLITE_CONSTRAINT_UNIQUE || code == SQLITE_CONSTRAINT_PRIMARYKEY)
    throw HistoryDuplicate(message);
  throw HistoryError(message, SqliteKind(code));
}

std::unique_ptr<HistoryStatement> SqliteDb::Prepare(const std::string& sql) {
  return std::make_unique<SqliteStatement>(*this, sql);
}

void SqliteDb::Rollback() {
  try {
    Exec("ROLLBACK");
  } catch (...) {
    // The connection closes next; SQLite rolls an open transaction back then.
  }
}

int SqliteDb::SchemaVersion() {
  SqliteStatement q(*this, "PRAGMA user_version");
  q.Step();
  return int(q.Int(0));
}

void SqliteDb::SetSchemaVersion(int version) {
  Exec("PRAGMA user_version = " + std::to_string(version));
}

int64_t SqliteDb::TableCount() {
  SqliteStatement q(*this, "SELECT count(*) FROM sqlite_master");
  q.Step();
  return q.Int(0);
}

// Two runs appending at once: WAL lets readers go on while one writes. Only once the file is
// known to be ours, so a refused database stays untouched.
void SqliteDb::PrepareForWrites() {
  // Switching a new file to WAL turns a read lock into a write lock. When another process
  // does the same at once, SQLite answers SQLITE_BUSY straight away (waiting could deadlock
  // the two), not after the busy timeout: so the switch is tried again until that timeout.
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  for (;;) {
    try {
      Exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL");
      return;
    } catch (const HistoryError&) {
      if ((sqlite3_errcode(db_) & 0xff) != SQLITE_BUSY ||
          std::chrono::steady_clock::now() > deadline)
        throw;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

std::string SqliteDb::Dialect(const std::string& sql) const {
  // The words of schema 1 as it shipped: INTEGER PRIMARY KEY is SQLite's rowid alias.
  return ExpandDialect(
      sql, {.id = "INTEGER PRIMARY KEY", .integer = "INTEGER", .real = "REAL", .text = "TEXT"});
}

void SqliteDb::Exec(const std::string& sql) {
  char* error = nullptr;
  if (const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error); rc != SQLITE_OK) {
    const std::string why = error ? error : sqlite3_errmsg(db_);
    sqlite3_free(error);
    throw HistoryError(path_ + ": " + why, SqliteKind(rc));
  }
}

SqliteStatement::SqliteStatement(SqliteDb& db, const std::string& sql) : db_(db) {
  if (sqlite3_prepare_v2(db.handle(), sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK)
    db.Fail("cannot prepare \"" + sql.substr(0, 60) + "\"");
  // $N is a named parameter to SQLite, numbered by first appearance: $2 before $1 would
  // bind each value to the other's place, silently.
  for (int i = 1; i <= sqlite3_bind_parameter_count(stmt_); ++i) {
    const char* raw = sqlite3_bind_parameter_name(stmt_, i);
    const std::string name = raw ? raw : "?";  // a copy: the statement owns raw
    if (name != "$" + std::to_string(i)) {
      sqlite3_finalize(stmt_);
      stmt_ = nullptr;
      throw Error(ErrorKind::Internal, "history SQL \"" + sql.substr(0, 60) + "\": parameter " +
                                           std::to_string(i) + " is " + name + ", not $" +
                                           std::to_string(i));
    }
  }
}

SqliteStatement::~SqliteStatement() { sqlite3_finalize(stmt_); }

HistoryStatement& SqliteStatement::Bind(int index, const std::string& text) {
  if (sqlite3_bind_text(stmt_, index, text.data(), int(text.size()), SQLITE_TRANSIENT) !=
      SQLITE_OK)
    db_.Fail("cannot bind a value");
  return *this;
}

HistoryStatement& SqliteStatement::Bind(int index, int64_t value) {
  if (sqlite3_bind_int64(stmt_, index, value) != SQLITE_OK) db_.Fail("cannot bind a value");
  return *this;
}

HistoryStatement& SqliteStatement::Bind(int index, double value) {
  if (sqlite3_bind_double(stmt_, index, value) != SQLITE_OK) db_.Fail("cannot bind a value");
  return *this;
}

bool SqliteStatement::Step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_.Fail("statement failed");
}

std::string SqliteStatement::Text(int column) const {
  const auto* text = sqlite3_column_text(stmt_, column);
  return text ? std::string(reinterpret_cast<const char*>(text),
                            size_t(sqlite3_column_bytes(stmt_, column)))
              : std::string();
}

int64_t SqliteStatement::Int(int column) const { return sqlite3_column_int64(stmt_, column); }

std::optional<double> SqliteStatement::Real(int column) const {
  if (sqlite3_column_type(stmt_, column) == SQLITE_NULL) return std::nullopt;
  return sqlite3_column_double(stmt_, column);
}

}  // namespace storbed
