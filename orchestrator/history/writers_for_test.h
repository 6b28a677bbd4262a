// Test support: history writers in processes of their own, as the hosts of a lab are.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "history/history_store.h"

namespace storbed {

// Forks one process per list of `dirs_per_writer`, each importing its directories into
// `spec` in order, all at once; returns when every one has ended, with how many failed
// (each failure said on stderr).
inline int ImportInWriterProcesses(const std::string& spec,
                                   const std::vector<std::vector<std::string>>& dirs_per_writer) {
  std::vector<pid_t> children;
  for (size_t w = 0; w < dirs_per_writer.size(); ++w) {
    const pid_t child = ::fork();
    if (child < 0) throw std::runtime_error("fork failed");
    if (child == 0) {
      try {  // _exit, never exit: the parent's static cluster must not be stopped by a child
        HistoryStore store(spec, HistoryStore::Open::Create);
        for (const std::string& d : dirs_per_writer[w]) store.Import(d);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "writer %zu: %s\n", w, e.what());
        ::_exit(1);
      }
      ::_exit(0);
    }
    children.push_back(child);
  }
  int failed = 0;
  for (const pid_t child : children) {
    int status = 0;
    failed +=
        ::waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0;
  }
  return failed;
}

}  // namespace storbed
