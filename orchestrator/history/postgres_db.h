// The history's PostgreSQL engine (HistoryDb) over libpq: a lab's many hosts writing one
// store. The connection string is a postgresql:// URI without a password (libpq's own ways
// carry that: ~/.pgpass or PGPASSFILE, PGSERVICE, peer authentication); the schema version is
// the one row of storbed_schema. A server that cannot be reached is tried kConnectAttempts
// times with a growing pause, then named in a host error.
#pragma once

#include <libpq-fe.h>

#include <cstdint>
#include <string>
#include <vector>

#include "history/history_db.h"

namespace storbed {

inline constexpr int kConnectAttempts = 3;

// Throws HistoryError (bad input) when `uri` holds a password or is no connection string
// libpq can read; the message never repeats the string.
void RefusePasswordIn(const std::string& uri);

// Whose a failed connection is, from libpq's message: the server answered and refused the
// role, the database or the credentials (bad input, not retried), or it could not be reached
// or is starting up (the host, retried).
ErrorKind ConnectFailureKind(const std::string& message);

class PostgresDb : public HistoryDb {
 public:
  explicit PostgresDb(const std::string& uri);
  ~PostgresDb() override;
  PostgresDb(const PostgresDb&) = delete;
  PostgresDb& operator=(const PostgresDb&) = delete;

  void Exec(const std::string& sql) override;
  std::unique_ptr<HistoryStatement> Prepare(const std::string& sql) override;
  void Begin() override { Exec("BEGIN"); }
  void Commit() override { Exec("COMMIT"); }
  void Rollback() override;
  void LockSchema() override;
  void UnlockSchema() override;
  int SchemaVersion() override;
  void SetSchemaVersion(int version) override;
  int64_t TableCount() override;
  void PrepareForWrites() override {}
  void Reconnect() override;
  std::string Dialect(const std::string& sql) const override;
  const std::string& name() const override { return uri_; }

  // Runs `sql` with text parameters of the given type OIDs; the caller owns the result.
  // Throws HistoryError (HistoryDuplicate, HistoryConnectionLost) with nothing to free.
  PGresult* Run(const std::string& sql, const std::vector<std::string>& values,
                const std::vector<Oid>& types, const std::vector<bool>& nulls);

 private:
  void Connect();
  [[noreturn]] void Fail(const std::string& sql, PGresult* result);

  std::string uri_;
  PGconn* conn_ = nullptr;
};

}  // namespace storbed
