// The history's SQLite engine (HistoryDb): one connection opened with a busy timeout (two
// writers at once wait for each other instead of failing), the schema version in PRAGMA
// user_version. Errors are HistoryError naming the file.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "history/history_db.h"

namespace storbed {

class SqliteDb : public HistoryDb {
 public:
  enum class Mode { ReadOnly, ReadWriteCreate };
  // Opens `path`; ReadOnly fails on a missing file. Throws HistoryError.
  SqliteDb(const std::string& path, Mode mode);
  ~SqliteDb() override;
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  // Runs statements without results. Throws HistoryError with the SQL error.
  void Exec(const std::string& sql) override;
  std::unique_ptr<HistoryStatement> Prepare(const std::string& sql) override;
  void Begin() override { Exec("BEGIN IMMEDIATE"); }
  void Commit() override { Exec("COMMIT"); }
  void Rollback() override;
  // BEGIN IMMEDIATE takes the one write lock: that is the migration's lock.
  void LockSchema() override {}
  void UnlockSchema() override {}
  int SchemaVersion() override;
  void SetSchemaVersion(int version) override;
  int64_t TableCount() override;
  void PrepareForWrites() override;
  void Reconnect() override {}
  std::string Dialect(const std::string& sql) const override;
  const std::string& name() const override { return path_; }
  const std::string& path() const { return path_; }
  sqlite3* handle() { return db_; }
  [[noreturn]] void Fail(const std::string& what) const;

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
};

// One prepared statement. Its parameters must be $1, $2... in order of first appearance:
// SQLite numbers named parameters so, and the constructor checks it.
class SqliteStatement : public HistoryStatement {
 public:
  SqliteStatement(SqliteDb& db, const std::string& sql);
  ~SqliteStatement() override;
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  HistoryStatement& Bind(int index, const std::string& text) override;
  HistoryStatement& Bind(int index, int64_t value) override;
  HistoryStatement& Bind(int index, double value) override;
  bool Step() override;
  std::string Text(int column) const override;
  int64_t Int(int column) const override;
  std::optional<double> Real(int column) const override;

 private:
  SqliteDb& db_;
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace storbed
