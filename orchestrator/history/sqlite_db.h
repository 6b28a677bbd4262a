// A small owner of one SQLite connection: open with a busy timeout (two writers at once
// wait for each other instead of failing), run statements, bind and read columns, and
// transactions that roll back unless committed. Errors are HistoryError naming the file.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "error.h"

namespace storbed {

// Bad input (no such database, a directory or a file that is not one, a newer schema, not a
// storbed history) unless SQLite says the host failed (an I/O error, a full disk, a lock):
// then ErrorKind::Host, never exit 2.
class HistoryError : public Error {
 public:
  explicit HistoryError(const std::string& what, ErrorKind kind = ErrorKind::BadInput)
      : Error(kind, what) {}
};

class SqliteDb {
 public:
  enum class Mode { ReadOnly, ReadWriteCreate };
  // Opens `path`; ReadOnly fails on a missing file. Throws HistoryError.
  SqliteDb(const std::string& path, Mode mode);
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  // Runs statements without results. Throws HistoryError with the SQL error.
  void Exec(const std::string& sql);
  int64_t LastInsertId() const { return sqlite3_last_insert_rowid(db_); }
  const std::string& path() const { return path_; }
  sqlite3* handle() { return db_; }
  [[noreturn]] void Fail(const std::string& what) const;

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
};

// One prepared statement; Bind* are 1-based, columns 0-based.
class SqliteStatement {
 public:
  SqliteStatement(SqliteDb& db, const std::string& sql);
  ~SqliteStatement();
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  SqliteStatement& Bind(int index, const std::string& text);
  SqliteStatement& Bind(int index, int64_t value);
  SqliteStatement& Bind(int index, double value);
  // True while a row is available; false when done. Throws HistoryError.
  bool Step();
  // Runs a statement that returns no rows.
  void Run();
  std::string Text(int column) const;
  int64_t Int(int column) const;
  std::optional<double> Real(int column) const;  // nullopt for NULL

 private:
  SqliteDb& db_;
  sqlite3_stmt* stmt_ = nullptr;
};

// BEGIN IMMEDIATE (takes the write lock at once, so the busy timeout covers the whole
// wait); rolled back on destruction unless Commit() ran.
class SqliteTransaction {
 public:
  explicit SqliteTransaction(SqliteDb& db);
  ~SqliteTransaction();
  void Commit();

 private:
  SqliteDb& db_;
  bool done_ = false;
};

}  // namespace storbed
