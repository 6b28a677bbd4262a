#include "history/postgres_db.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace storbed {
namespace {

// Type OIDs of the parameters (catalog/pg_type.h, fixed since PostgreSQL 7).
constexpr Oid kTextOid = 25, kInt8Oid = 20, kFloat8Oid = 701;

// Any 64-bit number only storbed uses: the advisory lock its migrations take.
constexpr int64_t kSchemaLockKey = 0x73746f7262656431;  // "storbed1"

std::string Trimmed(const char* text) {
  std::string s = text ? text : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// SQLSTATE classes (appendix A of the PostgreSQL manual) whose failure is the host's: the
// connection (08), resources such as a full disk (53), an operator's shutdown (57), the
// server's system errors (58), a serialization or deadlock (40).
ErrorKind StateKind(const std::string& state) {
  const std::string c = state.substr(0, 2);
  if (c == "08" || c == "53" || c == "57" || c == "58" || c == "40" || c == "XX")
    return ErrorKind::Host;
  return ErrorKind::BadInput;
}

class PostgresStatement : public HistoryStatement {
 public:
  PostgresStatement(PostgresDb& db, std::string sql) : db_(db), sql_(std::move(sql)) {}
  ~PostgresStatement() override { PQclear(result_); }

  HistoryStatement& Bind(int index, const std::string& text) override {
    return Set(index, text, kTextOid);
  }
  HistoryStatement& Bind(int index, int64_t value) override {
    return Set(index, std::to_string(value), kInt8Oid);
  }
  HistoryStatement& Bind(int index, double value) override {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", value);  // round-trips every double exactly
    return Set(index, text, kFloat8Oid);
  }
  bool Step() override {
    if (!result_) {
      result_ = db_.Run(sql_, values_, types_, std::vector<bool>(values_.size(), false));
      row_ = -1;
    }
    return ++row_ < PQntuples(result_);
  }
  std::string Text(int column) const override {
    return std::string(PQgetvalue(result_, row_, column),
                       size_t(PQgetlength(result_, row_, column)));
  }
  int64_t Int(int column) const override {
    return std::strtoll(PQgetvalue(result_, row_, column), nullptr, 10);
  }
  std::optional<double> Real(int column) const override {
    if (PQgetisnull(result_, row_, column)) return std::nullopt;
    return std::strtod(PQgetvalue(result_, row_, column), nullptr);
  }

 private:
  HistoryStatement& Set(int index, std::string value, Oid type) {
    if (size_t(index) > values_.size()) {
      values_.resize(size_t(index));
      types_.resize(size_t(index), kTextOid);
    }
    values_[size_t(index) - 1] = std::move(value);
    types_[size_t(index) - 1] = type;
    return *this;
  }

  PostgresDb& db_;
  std::string sql_;
  std::vector<std::string> values_;
  std::vector<Oid> types_;
  PGresult* result_ = nullptr;
  int row_ = -1;
};

}  // namespace

void RefusePasswordIn(const std::string& uri) {
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(uri.c_str(), &error);
  if (!options) {
    const std::string why = error ? Trimmed(error) : "out of memory";
    PQfreemem(error);
    throw HistoryError("--history: not a PostgreSQL connection URI libpq can read: " + why);
  }
  bool password = false;
  for (PQconninfoOption* o = options; o->keyword; ++o)
    if (std::string(o->keyword) == "password" && o->val && *o->val) password = true;
  PQconninfoFree(options);
  if (password)
    throw HistoryError(
        "--history: the PostgreSQL connection string holds a password; it is refused, since "
        "a command line shows in process lists, shell history and logs: put the password in "
        "~/.pgpass (or the file PGPASSFILE names), use a PGSERVICE entry, or peer "
        "authentication, and give postgresql://USER@HOST/DB");
}

ErrorKind ConnectFailureKind(const std::string& message) {
  for (const char* refused : {"does not exist", "authentication failed", "no pg_hba.conf entry",
                              "password", "permission denied for database"})
    if (message.find(refused) != std::string::npos) return ErrorKind::BadInput;
  return ErrorKind::Host;
}

PostgresDb::PostgresDb(const std::string& uri) : uri_(uri) {
  RefusePasswordIn(uri);
  Connect();
}

PostgresDb::~PostgresDb() { PQfinish(conn_); }

void PostgresDb::Connect() {
  std::string why;
  for (int attempt = 1; attempt <= kConnectAttempts; ++attempt) {
    PQfinish(conn_);
    conn_ = PQconnectdb(uri_.c_str());
    if (conn_ && PQstatus(conn_) == CONNECTION_OK) {
      // CREATE TABLE IF NOT EXISTS and friends send NOTICEs: not for the user's terminal.
      PQsetNoticeProcessor(
          conn_, [](void*, const char*) {}, nullptr);
      Exec("SET client_min_messages = warning");
      return;
    }
    why = conn_ ? Trimmed(PQerrorMessage(conn_)) : "out of memory";
    if (ConnectFailureKind(why) == ErrorKind::BadInput) {
      PQfinish(conn_);
      conn_ = nullptr;
      throw HistoryError(uri_ + ": the server refused the connection: " + why);
    }
    // A server restarting or a network blip: wait 0.25 s, then 0.5 s.
    if (attempt < kConnectAttempts)
      std::this_thread::sleep_for(std::chrono::milliseconds(250 << (attempt - 1)));
  }
  PQfinish(conn_);
  conn_ = nullptr;
  throw HistoryError(uri_ + ": cannot connect to the history server (" +
                         std::to_string(kConnectAttempts) + " attempts): " + why,
                     ErrorKind::Host);
}

void PostgresDb::Reconnect() { Connect(); }

void PostgresDb::Fail(const std::string& sql, PGresult* result) {
  const char* state = result ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
  const std::string code = state ? state : "";
  std::string why = Trimmed(result ? PQresultErrorMessage(result) : PQerrorMessage(conn_));
  if (why.empty()) why = Trimmed(PQerrorMessage(conn_));
  PQclear(result);
  const std::string message = uri_ + ": \"" + sql.substr(0, 60) + "\": " + why;
  if (PQstatus(conn_) == CONNECTION_BAD || code.rfind("08", 0) == 0 || code == "57P01")
    throw HistoryConnectionLost(message);
  if (code == "23505") throw HistoryDuplicate(message);
  if (code == "42501")
    throw HistoryError(message + " (the role may read this history but not write it)");
  throw HistoryError(message, code.empty() ? ErrorKind::Host : StateKind(code));
}

PGresult* PostgresDb::Run(const std::string& sql, const std::vector<std::string>& values,
                          const std::vector<Oid>& types, const std::vector<bool>& nulls) {
  std::vector<const char*> raw;
  for (size_t i = 0; i < values.size(); ++i) raw.push_back(nulls[i] ? nullptr : values[i].c_str());
  PGresult* r = PQexecParams(conn_, sql.c_str(), int(values.size()), types.data(), raw.data(),
                             nullptr, nullptr, 0);
  const ExecStatusType status = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
  if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) Fail(sql, r);
  return r;
}

void PostgresDb::Exec(const std::string& sql) {
  // The simple protocol: several statements in one string, as a migration is.
  PGresult* r = PQexec(conn_, sql.c_str());
  const ExecStatusType status = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
  if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) Fail(sql, r);
  PQclear(r);
}

std::unique_ptr<HistoryStatement> PostgresDb::Prepare(const std::string& sql) {
  return std::make_unique<PostgresStatement>(*this, sql);
}

void PostgresDb::Rollback() {
  if (PQstatus(conn_) != CONNECTION_OK) return;  // the server rolled it back when it broke
  PQclear(PQexec(conn_, "ROLLBACK"));
}

// A session lock taken before BEGIN, not a transaction's: a transaction that waited for the
// lock inside still sees the schema as missing (its catalog cache kept the "no such table"
// from before the wait), and two runs both created it (ManyWritersAtOnce... caught that).
void PostgresDb::LockSchema() {
  PostgresStatement q(*this, "SELECT pg_advisory_lock($1)");
  q.Bind(1, kSchemaLockKey).Run();
}

void PostgresDb::UnlockSchema() {
  try {
    PostgresStatement q(*this, "SELECT pg_advisory_unlock($1)");
    q.Bind(1, kSchemaLockKey).Run();
  } catch (const HistoryError&) {
    // The connection broke: the server dropped the lock with it.
  }
}

int PostgresDb::SchemaVersion() {
  PostgresStatement exists(*this, "SELECT to_regclass('storbed_schema') IS NOT NULL");
  exists.Step();
  if (exists.Text(0) != "t") return 0;
  PostgresStatement q(*this, "SELECT coalesce(max(version), 0) FROM storbed_schema");
  q.Step();
  return int(q.Int(0));
}

void PostgresDb::SetSchemaVersion(int version) {
  Exec(
      "CREATE TABLE IF NOT EXISTS storbed_schema (version INTEGER NOT NULL); "
      "DELETE FROM storbed_schema; INSERT INTO storbed_schema VALUES (" +
      std::to_string(version) + ")");
}

int64_t PostgresDb::TableCount() {
  PostgresStatement q(*this,
                      "SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = "
                      "current_schema()");
  q.Step();
  return q.Int(0);
}

std::string PostgresDb::Dialect(const std::string& sql) const {
  // A double, not PostgreSQL's 4-byte REAL; text in byte order whatever the database's
  // locale, so sessions and cells sort as in SQLite.
  return ExpandDialect(sql, {.id = "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
                             .integer = "BIGINT",
                             .real = "DOUBLE PRECISION",
                             .text = "TEXT COLLATE \"C\""});
}

}  // namespace storbed
