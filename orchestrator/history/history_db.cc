#include "history/history_db.h"

#include <filesystem>

#include "history/postgres_db.h"
#include "history/sqlite_db.h"

namespace storbed {

std::string ExpandDialect(const std::string& sql, const DialectWords& words) {
  const std::pair<const char*, const char*> table[] = {
      {"{id}", words.id}, {"{int}", words.integer}, {"{real}", words.real}, {"{text}", words.text}};
  std::string out = sql;
  for (const auto& [token, word] : table) {
    const std::string from = token, to = word;
    for (size_t at = out.find(from); at != std::string::npos; at = out.find(from, at + to.size()))
      out.replace(at, from.size(), to);
  }
  return out;
}

bool IsPostgresSpec(const std::string& spec) {
  return spec.rfind("postgresql://", 0) == 0 || spec.rfind("postgres://", 0) == 0;
}

bool SameHistoryFile(const std::string& a, const std::string& b) {
  if (a == b) return true;
  if (IsPostgresSpec(a) || IsPostgresSpec(b)) return false;
  std::error_code ec;
  return std::filesystem::equivalent(a, b, ec) && !ec;
}

void CheckHistorySpec(const std::string& spec) {
  if (IsPostgresSpec(spec)) RefusePasswordIn(spec);
}

std::unique_ptr<HistoryDb> OpenHistoryDb(const std::string& spec, HistoryOpen open) {
  if (spec.empty()) throw HistoryError("give the history database (a file or postgresql://...)");
  if (IsPostgresSpec(spec)) return std::make_unique<PostgresDb>(spec);
  if (open == HistoryOpen::Existing && !std::filesystem::exists(spec))
    throw HistoryError(spec + ": no such history database");
  return std::make_unique<SqliteDb>(spec, SqliteDb::Mode::ReadWriteCreate);
}

}  // namespace storbed
