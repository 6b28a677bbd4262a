#include "tunables_journal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "error.h"
#include "file_read.h"
#include "owner_marker.h"
#include "strict_json.h"
#include "unique_fd.h"

namespace storbed {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void ThrowWithErrno(const std::string& what) {
  throw Error(ErrorKind::Host, what + ": " + std::strerror(errno));
}

void WriteWhole(int fd, const std::string& text, const std::string& path) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) ThrowWithErrno("cannot write " + path);
    done += size_t(n);
  }
}

// A sysfs attribute takes the value in one write; the kernel's error is the errno.
void WriteQueueAttr(const std::string& path, const std::string& value) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC));
  if (!fd.valid()) ThrowWithErrno("cannot restore " + path + " to " + value + ": open");
  if (::write(fd.get(), value.data(), value.size()) != ssize_t(value.size()))
    ThrowWithErrno("cannot restore " + path + " to " + value);
}

std::string WithoutNewline(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

}  // namespace

std::string FormatTunablesJournal(const TunablesJournal& journal) {
  return nlohmann::json{{"device", journal.device},
                        {"dev", journal.dev_number},
                        {"original", journal.original}}
             .dump() +
         "\n";
}

std::optional<TunablesJournal> ParseTunablesJournal(const std::string& text) {
  const auto j = ParseJsonOrDiscarded(text);
  if (!j.is_object() || !j.contains("device") || !j["device"].is_string() || !j.contains("dev") ||
      !j["dev"].is_string() || !j.contains("original") || !j["original"].is_object())
    return std::nullopt;
  TunablesJournal journal{.device = j["device"].get<std::string>(),
                          .dev_number = j["dev"].get<std::string>()};
  // A device name is one path component: a journal must not steer writes elsewhere.
  if (journal.device.empty() || journal.device.find('/') != std::string::npos ||
      journal.device == "." || journal.device == "..")
    return std::nullopt;
  try {
    journal.original = j["original"].get<BlockTunables>();
  } catch (const std::exception&) {
    return std::nullopt;
  }
  return journal;
}

void WriteTunablesJournal(const std::string& dir, const TunablesJournal& journal) {
  const std::string path = dir + "/" + kTunablesJournalFile;
  const std::string temp = path + ".tmp";
  {
    UniqueFd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
    if (!fd.valid()) ThrowWithErrno("cannot create " + temp);
    WriteWhole(fd.get(), FormatTunablesJournal(journal), temp);
    if (::fsync(fd.get()) != 0) ThrowWithErrno("cannot fsync " + temp);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) ThrowWithErrno("cannot rename " + temp);
  // The rename is durable only once the dir's own entry list is on disk.
  UniqueFd d(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!d.valid() || ::fsync(d.get()) != 0) ThrowWithErrno("cannot fsync " + dir);
}

std::string RestoreTunables(const TunablesJournal& journal, const std::string& sysfs_root) {
  const std::string block = sysfs_root + "/block/" + journal.device;
  const auto number = TryReadFile(block + "/dev");
  if (!number || WithoutNewline(*number) != journal.dev_number) return journal.device + ": gone";
  const std::string q = block + "/queue/";
  const BlockTunables& o = journal.original;
  std::string done;
  auto put = [&](const char* attr, const std::string& value) {
    WriteQueueAttr(q + attr, value);
    done += (done.empty() ? "" : ", ") + std::string(attr) + " " + value;
  };
  if (!o.scheduler.empty()) put("scheduler", o.scheduler);
  if (o.nr_requests >= 0) put("nr_requests", std::to_string(o.nr_requests));
  if (o.max_sectors_kb >= 0) put("max_sectors_kb", std::to_string(o.max_sectors_kb));
  // Last: a max_sectors_kb change re-applies the queue limits, read_ahead_kb with them.
  if (o.read_ahead_kb >= 0) put("read_ahead_kb", std::to_string(o.read_ahead_kb));
  return journal.device + ": " + (done.empty() ? "nothing changed" : done);
}

std::vector<std::string> StaleTunablesDirs(const std::string& root, const std::string& this_host,
                                           const std::string& proc_root) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    const std::string name = entry.path().filename();
    if (name.rfind(kTunablesDirPrefix, 0) != 0 || entry.is_symlink(ec) || !entry.is_directory(ec))
      continue;
    // Ours only when we made it: our user's, private. A dir another user could have made
    // or written would let them choose which device root writes to.
    struct stat st {};
    if (::lstat(entry.path().c_str(), &st) != 0 || st.st_uid != ::geteuid() ||
        (st.st_mode & 077) != 0)
      continue;
    const auto owner = ParseOwnerMarker(ReadFileOrEmpty(entry.path() / kOwnerFileName));
    if (!owner || owner->host != this_host || OwnerRuns(*owner, proc_root)) continue;
    out.push_back(entry.path());
  }
  return out;
}

}  // namespace storbed
