// Test support: a private PostgreSQL cluster for the history tests, one per test program,
// started on first use and stopped and removed when the program ends. initdb into a temporary
// directory, the server on a unix socket there only (no TCP, no system service touched),
// trust authentication inside it; as root it runs as the postgres user, since initdb refuses
// root. Each test takes a database of its own.
#pragma once

#include <libpq-fe.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

namespace storbed {

class PgTestCluster {
 public:
  // The program's cluster; nullptr (and why in `why`) when this machine cannot start one.
  static PgTestCluster* Get(std::string* why) {
    static std::string failure;
    static const std::unique_ptr<PgTestCluster> cluster = [] {
      try {
        return std::unique_ptr<PgTestCluster>(new PgTestCluster());
      } catch (const std::exception& e) {
        failure = e.what();
        return std::unique_ptr<PgTestCluster>();
      }
    }();
    if (!cluster && why) *why = failure;
    return cluster.get();
  }

  ~PgTestCluster() {
    Sh(AsOwner(Bin("pg_ctl") + " -D " + dir_ + "/data -m immediate -w stop"));
    std::filesystem::remove_all(dir_);
  }

  // A URI of database `db` as role `role` over the cluster's socket.
  std::string Uri(const std::string& db, const std::string& role = "storbed") const {
    return "postgresql:///" + db + "?host=" + dir_ + "&user=" + role;
  }
  // Runs `sql` as the superuser in database `db`; throws with the server's message.
  void Admin(const std::string& sql, const std::string& db = "postgres") const {
    PGconn* c = PQconnectdb(Uri(db, "postgres").c_str());
    std::string error;
    if (PQstatus(c) != CONNECTION_OK) {
      error = PQerrorMessage(c);
    } else {
      PGresult* r = PQexec(c, sql.c_str());
      if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK)
        error = PQresultErrorMessage(r);
      PQclear(r);
    }
    PQfinish(c);
    if (!error.empty()) throw std::runtime_error("test cluster: " + sql + ": " + error);
  }
  // A new empty database owned by role storbed, named after `name` (unique per program).
  std::string NewDatabase(const std::string& name) {
    std::string db = "t" + std::to_string(++databases_) + "_";
    for (char c : name)
      db += std::isalnum(static_cast<unsigned char>(c)) ? char(std::tolower(c)) : '_';
    db = db.substr(0, 60);
    Admin("CREATE DATABASE " + db + " OWNER storbed");
    return db;
  }

 private:
  PgTestCluster() {
    const char* bin = std::getenv("STORBED_TEST_PG_BIN");
    bin_ = bin ? bin : "/usr/lib/postgresql/15/bin";
    if (!std::filesystem::exists(Bin("initdb")))
      throw std::runtime_error(Bin("initdb") + " missing");
    StopClustersOfDeadPrograms();
    char tmpl[] = "/tmp/storbed-pg-XXXXXX";  // short: a socket path has 107 bytes at most
    if (!::mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
    dir_ = tmpl;
    std::ofstream(dir_ + "/" + kOwnerFile) << ::getpid() << "\n";
    if (::geteuid() == 0) {
      const passwd* pg = ::getpwnam("postgres");
      if (!pg) throw std::runtime_error("running as root and there is no postgres user for initdb");
      owner_ = "postgres";
      if (::chown(dir_.c_str(), pg->pw_uid, pg->pw_gid) != 0)
        throw std::runtime_error("cannot chown " + dir_ + " to postgres");
    }
    try {
      Run(Bin("initdb") + " -D " + dir_ + "/data -A trust -U postgres --no-sync --locale=C.UTF-8");
      Run(Bin("pg_ctl") + " -D " + dir_ + "/data -l " + dir_ + "/server.log -w -o \"-k " + dir_ +
          " -c listen_addresses='' -c fsync=off -c max_connections=60\" start");
      Admin("CREATE ROLE storbed LOGIN");
    } catch (...) {
      Sh(AsOwner(Bin("pg_ctl") + " -D " + dir_ + "/data -m immediate -w stop"));
      std::filesystem::remove_all(dir_);
      throw;
    }
  }
  static constexpr const char* kOwnerFile = "owner.pid";

  // A test program killed with SIGKILL (ctest's timeout) never ran the destructor: its server
  // would run on. The next program stops and removes each cluster whose owner is gone.
  void StopClustersOfDeadPrograms() {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator("/tmp", ec)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("storbed-pg-", 0) != 0) continue;
      int owner = 0;
      std::ifstream(entry.path() / kOwnerFile) >> owner;
      if (owner <= 0 || ::kill(owner, 0) == 0 || errno != ESRCH) continue;
      dir_ = entry.path().string();
      Sh(AsOwnerOf(dir_, Bin("pg_ctl") + " -D " + dir_ + "/data -m immediate -w stop"));
      std::filesystem::remove_all(dir_, ec);
    }
    dir_.clear();
  }
  // As the owner of `dir` when that is not us (root runs the server as postgres).
  std::string AsOwnerOf(const std::string& dir, const std::string& command) const {
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0 || st.st_uid == ::geteuid()) return command;
    const passwd* pw = ::getpwuid(st.st_uid);
    return pw ? "runuser -u " + std::string(pw->pw_name) + " -- " + command : command;
  }
  std::string Bin(const std::string& tool) const { return bin_ + "/" + tool; }
  std::string AsOwner(const std::string& command) const {
    return owner_.empty() ? command : "runuser -u " + owner_ + " -- " + command;
  }
  int Sh(const std::string& command) const {
    return std::system((command + " >>" + dir_ + "/tools.log 2>&1").c_str());
  }
  void Run(const std::string& command) const {
    if (Sh(AsOwner(command)) != 0) {
      std::ifstream log(dir_ + "/tools.log");
      std::stringstream text;
      text << log.rdbuf();
      throw std::runtime_error(command + " failed: " + text.str());
    }
  }

  std::string bin_, dir_, owner_;
  int databases_ = 0;
};

}  // namespace storbed
