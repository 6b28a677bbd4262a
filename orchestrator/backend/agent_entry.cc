#include "backend/agent_entry.h"

#include <optional>
#include <thread>

#include "backend/base64.h"

namespace storbed {
namespace {

using namespace std::chrono_literals;

// Each qemu-ga wait is short, so the loop keeps looking at the agent's port: under auto,
// cloud-init may start the agent while qemu-ga is still silent (or absent).
constexpr auto kQgaTry = 2s;
constexpr auto kSyncRetry = 1s;
constexpr auto kPoll = 250ms;
constexpr auto kReadTimeout = 30s;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// What the guest shows of its cloud-init, read through qemu-ga's file commands.
struct CloudInitSeen {
  enum State { Usable, Absent, Unknown } state = Unknown;
  std::string why;  // Absent: what rules it out; Unknown: why it could not be read
};

// A small guest file's bytes, or nullopt when it does not exist. Throws QgaError for any
// other failure (a blocked command, a read error).
std::optional<std::string> ReadGuestFile(QgaChannel& qga, const std::string& path,
                                         const std::function<void()>& check) {
  int64_t handle = 0;
  try {
    handle = qga.Execute("guest-file-open", {{"path", path}, {"mode", "r"}}, kReadTimeout, check)
                 .get<int64_t>();
  } catch (const QgaCommandError& e) {
    if (std::string(e.what()).find("No such file") != std::string::npos) return std::nullopt;
    throw;
  }
  const nlohmann::json read =
      qga.Execute("guest-file-read", {{"handle", handle}, {"count", 4096}}, kReadTimeout, check);
  qga.Execute("guest-file-close", {{"handle", handle}}, kReadTimeout, check);
  return Base64Decode(read.value("buf-b64", std::string()));
}

// cloud-init's own off switches (cloud-init(1), "disabling cloud-init") and its program.
CloudInitSeen LookForCloudInit(QgaChannel& qga, const std::function<void()>& check) {
  try {
    if (!ReadGuestFile(qga, "/usr/bin/cloud-init", check))
      return {CloudInitSeen::Absent, "the guest has no /usr/bin/cloud-init"};
    if (ReadGuestFile(qga, "/etc/cloud/cloud-init.disabled", check))
      return {CloudInitSeen::Absent, "/etc/cloud/cloud-init.disabled exists in the guest"};
    if (const auto cmdline = ReadGuestFile(qga, "/proc/cmdline", check);
        cmdline && cmdline->find("cloud-init=disabled") != std::string::npos)
      return {CloudInitSeen::Absent, "the guest's kernel command line has cloud-init=disabled"};
    return {CloudInitSeen::Usable, ""};
  } catch (const QgaError& e) {
    return {CloudInitSeen::Unknown, e.what()};
  }
}

// The sentence a failed entry ends with: both ways, and what each needs.
std::string BothWays(const ForeignRoot& foreign) {
  std::string text =
      "storbed puts its agent into a foreign guest in one of two ways: (a) the image's "
      "qemu-guest-agent (Debian: apt-get install qemu-guest-agent), started when its port "
      "appears, with guest-file-open/-write/-close, guest-exec and guest-exec-status "
      "allowed; (b) cloud-init with the NoCloud data source, which reads storbed's seed disk "
      "(label cidata) and starts the agent from its second small disk";
  if (foreign.push == AgentPushWay::Qga) text += "; machine.agent_push qga left (b) out";
  if (foreign.push == AgentPushWay::CloudInit) text += "; machine.agent_push cloud-init left (a) out";
  return text;
}

class Entry {
 public:
  Entry(const ForeignRoot& foreign, const AgentEntryPorts& ports, Clock::time_point deadline,
        const std::function<void()>& check, std::chrono::milliseconds cloud_init_grace)
      : foreign_(foreign),
        ports_(ports),
        deadline_(deadline),
        give_up_(deadline),
        check_(check),
        cloud_init_grace_(cloud_init_grace),
        qga_way_(ports.qga != nullptr && foreign.push != AgentPushWay::CloudInit),
        cloud_way_(!foreign.seed_image.empty() && foreign.push != AgentPushWay::Qga) {}

  AgentPushReport Run() {
    if (!qga_way_ && !cloud_way_) Fail("this machine offers neither way in");
    if (!qga_way_) qga_trouble_ = "the machine has no QEMU guest agent channel";
    for (;;) {
      check_();
      if (ports_.agent_port_open()) return Done();
      if (Clock::now() >= give_up_) Fail(TimeoutText());
      if (qga_way_ && !qga_done_) {
        TryQga();
      } else {
        std::this_thread::sleep_for(kPoll);
      }
    }
  }

 private:
  AgentPushReport Done() {
    if (!pushed_) {
      AgentPushReport cloud;  // nothing of a half-done push; qemu-ga's version if it answered
      cloud.path = "cloud-init";
      cloud.qga_version = report_.qga_version;
      cloud.not_qga = qga_trouble_.empty()
                          ? "cloud-init's agent opened its port before qemu-ga answered"
                          : qga_trouble_;
      report_ = cloud;
    }
    report_.agent_up_s = SecondsSince(start_);
    return report_;
  }

  [[noreturn]] void Fail(const std::string& what) {
    throw AgentEntryError("the agent did not get into the guest after " +
                          std::to_string(static_cast<int>(SecondsSince(start_))) + " s: " + what +
                          ". " + BothWays(foreign_));
  }

  std::string TimeoutText() const {
    std::string text = qga_way_ ? (qga_trouble_.empty() ? "no QEMU guest agent answered" : qga_trouble_)
                                : qga_trouble_;
    if (cloud_way_)
      text += "; cloud-init started no agent" +
              (cloud_trouble_.empty() ? std::string() : " (" + cloud_trouble_ + ")");
    return text;
  }

  // One short wait for qemu-ga; once it answers, push through it or rule it out.
  void TryQga() {
    try {
      ports_.qga->Sync(std::min(give_up_, Clock::now() + kQgaTry), check_, kSyncRetry);
    } catch (const QgaCommandError& e) {
      qga_done_ = true;
      QgaCannot(e.what());
      return;
    } catch (const QgaError&) {
      // Not up yet (or absent); a closed channel fails at once, so do not spin on it.
      std::this_thread::sleep_for(kPoll);
      return;
    }
    qga_done_ = true;
    report_.qga_ready_s = SecondsSince(start_);
    try {
      if (const auto missing = BlockedPushCommands(*ports_.qga, report_, check_); !missing.empty()) {
        QgaCannot(BlockedCommandsText(report_.qga_version, missing));
        return;
      }
      // Under auto, cloud-init may have been quicker: the port is taken, no second agent.
      if (ports_.agent_port_open()) return;
      CopyAndStartAgent(*ports_.qga, foreign_.agent_binary, report_, check_);
      pushed_ = true;
    } catch (const QgaError& e) {
      // The copy lost a race with cloud-init's agent (EBUSY on the port): that one serves.
      if (cloud_way_ && ports_.agent_port_open()) return;
      QgaCannot(e.what());
    }
  }

  // qemu-ga answered but cannot put the agent in: fail at once unless cloud-init may.
  void QgaCannot(const std::string& why) {
    qga_trouble_ = why;
    if (!cloud_way_) Fail(why);
    const CloudInitSeen seen = LookForCloudInit(*ports_.qga, check_);
    if (seen.state == CloudInitSeen::Absent) Fail(why + "; and " + seen.why);
    if (seen.state == CloudInitSeen::Unknown) {
      // Nothing tells whether cloud-init will come: give it a bounded while, not the boot
      // timeout.
      cloud_trouble_ = "qemu-ga could not show whether the guest has cloud-init: " + seen.why;
      give_up_ = std::min(deadline_, Clock::now() + cloud_init_grace_);
    }
  }

  const ForeignRoot& foreign_;
  const AgentEntryPorts& ports_;
  const Clock::time_point start_ = Clock::now();
  const Clock::time_point deadline_;
  Clock::time_point give_up_;
  const std::function<void()>& check_;
  const std::chrono::milliseconds cloud_init_grace_;
  const bool qga_way_, cloud_way_;
  bool qga_done_ = false, pushed_ = false;
  std::string qga_trouble_, cloud_trouble_;
  AgentPushReport report_;
};

}  // namespace

AgentPushReport BringAgentIn(const ForeignRoot& foreign, const AgentEntryPorts& ports,
                             Clock::time_point deadline, const std::function<void()>& check,
                             std::chrono::milliseconds cloud_init_grace) {
  return Entry(foreign, ports, deadline, check, cloud_init_grace).Run();
}

}  // namespace storbed
