// The database under the history store: one connection to SQLite (a file, the default) or
// PostgreSQL (a lab's server), behind one small interface so HistoryStore's SQL and its
// transactions are written once. SQL uses $1, $2... placeholders, numbered in order of first
// appearance (both engines read them so), and the schema's dialect words as {id}, {int},
// {real}, {text} (ExpandDialect).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "error.h"

namespace storbed {

// Bad input (no such database, a file or server database that is not a storbed history, a
// newer schema, a password in the connection string, a role that may not write) unless the
// host failed (SQLite's I/O error, a full disk, a lock; a server that cannot be reached):
// then ErrorKind::Host, never exit 2.
class HistoryError : public Error {
 public:
  explicit HistoryError(const std::string& what, ErrorKind kind = ErrorKind::BadInput)
      : Error(kind, what) {}
};

// A unique constraint refused a row: another writer put the same key in first.
class HistoryDuplicate : public HistoryError {
 public:
  explicit HistoryDuplicate(const std::string& what) : HistoryError(what) {}
};

// The connection to the server broke mid-statement; the open transaction is lost, and a
// retry after Reconnect() may succeed.
class HistoryConnectionLost : public HistoryError {
 public:
  explicit HistoryConnectionLost(const std::string& what) : HistoryError(what, ErrorKind::Host) {}
};

// One statement; Bind is 1-based, columns 0-based. Step() runs it on the first call.
class HistoryStatement {
 public:
  virtual ~HistoryStatement() = default;
  virtual HistoryStatement& Bind(int index, const std::string& text) = 0;
  virtual HistoryStatement& Bind(int index, int64_t value) = 0;
  virtual HistoryStatement& Bind(int index, double value) = 0;
  // True while a row is available; false when done. Throws HistoryError.
  virtual bool Step() = 0;
  // Runs a statement that returns no rows.
  void Run() {
    while (Step()) {
    }
  }
  virtual std::string Text(int column) const = 0;
  virtual int64_t Int(int column) const = 0;
  virtual std::optional<double> Real(int column) const = 0;  // nullopt for NULL
};

class HistoryDb {
 public:
  virtual ~HistoryDb() = default;
  // Runs statements without parameters or results. Throws HistoryError.
  virtual void Exec(const std::string& sql) = 0;
  virtual std::unique_ptr<HistoryStatement> Prepare(const std::string& sql) = 0;
  // A write transaction: SQLite takes the write lock at once (BEGIN IMMEDIATE).
  virtual void Begin() = 0;
  virtual void Commit() = 0;
  virtual void Rollback() = 0;  // never throws
  // Outside a transaction: waits until no other connection is migrating the schema, then
  // holds that off until UnlockSchema() (never throws).
  virtual void LockSchema() = 0;
  virtual void UnlockSchema() = 0;
  // The schema version (0 on a new database) and, within a transaction, its update.
  virtual int SchemaVersion() = 0;
  virtual void SetSchemaVersion(int version) = 0;
  // How many tables the database holds where the history's would go (0: a new database).
  virtual int64_t TableCount() = 0;
  // Called once the database is known to be a history (SQLite's WAL mode).
  virtual void PrepareForWrites() = 0;
  // Connects again after HistoryConnectionLost (bounded retries); SQLite never loses one.
  virtual void Reconnect() = 0;
  // The migration's text in this engine's words (see ExpandDialect).
  virtual std::string Dialect(const std::string& sql) const = 0;
  // The database as the user named it, safe to print (no secret is ever in it).
  virtual const std::string& name() const = 0;
};

// {id} an auto-numbered 64-bit primary key, {int} a 64-bit integer, {real} a double, {text}
// text compared byte by byte (ISO times and cell names sort the same in both engines).
struct DialectWords {
  const char* id;
  const char* integer;
  const char* real;
  const char* text;
};
std::string ExpandDialect(const std::string& sql, const DialectWords& words);

// Rolled back on destruction unless Commit() ran.
class HistoryTransaction {
 public:
  explicit HistoryTransaction(HistoryDb& db) : db_(db) { db_.Begin(); }
  ~HistoryTransaction() {
    if (!done_) db_.Rollback();
  }
  HistoryTransaction(const HistoryTransaction&) = delete;
  HistoryTransaction& operator=(const HistoryTransaction&) = delete;
  void Commit() {
    db_.Commit();
    done_ = true;
  }

 private:
  HistoryDb& db_;
  bool done_ = false;
};

// Existing: the database must be there (gate, history show); Create: made when missing
// (import). Only SQLite files are made; a server database is the operator's to create.
enum class HistoryOpen { Existing, Create };

// True for a PostgreSQL connection URI (postgresql://, postgres://).
bool IsPostgresSpec(const std::string& spec);

// One file under two names (./h.db and h.db, a hard or symbolic link) is one database.
bool SameHistoryFile(const std::string& a, const std::string& b);

// What can be said of `spec` before a run starts: a PostgreSQL URI holding a password is
// refused (HistoryError, bad input), so `run --history` fails before its runs, not after.
void CheckHistorySpec(const std::string& spec);

// Opens `spec`: a PostgreSQL URI, else an SQLite file path. Throws HistoryError.
std::unique_ptr<HistoryDb> OpenHistoryDb(const std::string& spec, HistoryOpen open);

}  // namespace storbed
