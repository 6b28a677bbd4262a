#include "images/run_tool.h"

#include <boost/process.hpp>
#include <stdexcept>

namespace storbed {

void RunTool(const std::vector<std::string>& argv, const std::string& install_hint) {
  namespace bp = boost::process;
  const boost::filesystem::path exe =
      bp::search_path(argv.at(0), {"/usr/sbin", "/sbin", "/usr/bin", "/bin"});
  if (exe.empty()) throw std::runtime_error(argv[0] + " not found (" + install_hint + ")");
  bp::ipstream out;
  std::vector<std::string> args(argv.begin() + 1, argv.end());
  bp::child c(exe.string(), bp::args(args), (bp::std_out & bp::std_err) > out,
              bp::std_in < bp::null);
  std::string text, line;
  while (std::getline(out, line)) text += line + "\n";
  c.wait();
  if (c.exit_code() != 0) {
    std::string cmd;
    for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
    throw std::runtime_error(cmd + " exited with status " + std::to_string(c.exit_code()) +
                             ": " + text);
  }
}

}  // namespace storbed
