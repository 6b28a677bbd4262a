#include "execute/machine_loss.h"

#include <chrono>
#include <fstream>
#include <thread>

#include "backend/agent_link.h"
#include "proc_stat.h"

namespace storbed {
namespace {

MachineLoss FromDeath(const MachineDiedError& died) {
  return {died.what(), died.panic_line().empty() ? "the guest died" : "the guest kernel panicked"};
}

}  // namespace

std::string QemuProcessStateText(int pid, const std::string& proc_root) {
  if (pid <= 0) return "";
  std::ifstream in(proc_root + "/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return "";
  const std::optional<ProcStat> stat = ParseProcStat(line);
  if (!stat) return "";
  const std::string who = "QEMU (pid " + std::to_string(pid) + ")";
  switch (stat->state) {
    case 'T':
    case 't': return who + " is stopped (state " + stat->state + ": SIGSTOP or a debugger)";
    case 'D': return who + " is in uninterruptible sleep (state D: stuck in host IO)";
    case 'Z': return who + " has exited and is not yet reaped (state Z)";
    default: return who + " is running (state " + std::string(1, stat->state) + ")";
  }
}

MachineLoss ExplainMachineLoss(Machine& machine, const std::exception& link_error) {
  if (const auto* lost = dynamic_cast<const MachineHostLostError*>(&link_error))
    return {lost->what(), "the connection to libvirtd was lost"};
  if (const auto* died = dynamic_cast<const MachineDiedError*>(&link_error)) return FromDeath(*died);
  const bool silent = dynamic_cast<const AgentSilentError*>(&link_error) != nullptr;
  // A hung QEMU will not exit by itself: one look is enough.
  const auto deadline = Clock::now() + (silent ? std::chrono::seconds(0) : std::chrono::seconds(3));
  do {
    try {
      machine.CheckAlive();
    } catch (const MachineDiedError& died) {
      return FromDeath(died);
    } catch (const MachineHostLostError& lost) {
      return {lost.what(), "the connection to libvirtd was lost"};
    } catch (const std::exception& e) {
      return {e.what(), "the guest died"};
    }
    if (Clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  } while (true);
  if (!silent) return {link_error.what(), "the agent link failed"};
  const std::string state = machine.OnThisHost() ? QemuProcessStateText(machine.Pid()) : "";
  return {std::string(link_error.what()) + (state.empty() ? "" : "; " + state),
          state.find("stopped") != std::string::npos ? "QEMU was stopped" : "the guest hung"};
}

}  // namespace storbed
