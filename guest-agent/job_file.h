// Reading a JobSpec from a JSON file for `storbed-agent --standalone JOB.json`.
#pragma once

#include <filesystem>
#include <string>

#include "errors.h"
#include "job.h"

namespace storbed::agent {

// A job file that cannot be read or is not a valid JobSpec. field() is the offending
// JSON field, "" when the problem is not one field (unreadable file, bad JSON).
class JobFileError : public AgentError {
 public:
  JobFileError(const std::string& path, const std::string& field, const std::string& problem);
  const std::string& field() const { return field_; }

 private:
  std::string field_;
};

// Parses a job document; `path` only names the source in errors. Unknown fields are
// rejected so that a typo ("iodepht") cannot silently run a different job.
// Throws JobFileError.
JobSpec ParseJobDocument(const std::string& text, const std::string& path);

// Reads and parses the file. Throws JobFileError.
JobSpec LoadJobFile(const std::filesystem::path& path);

}  // namespace storbed::agent
