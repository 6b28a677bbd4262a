// The job's fields, one row each (common/field.h): the scenario's job section, the agent
// protocol's job object and the job in results.json all use these rows and their names.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "field.h"
#include "job.h"

namespace storbed {

// Version of the job JSON (and of results.json records). 1: the wire names before the
// scenario's names were used everywhere (engine, io_limit, fsync_every, read_pct, ...),
// with the queue tunables under "tunables". 2: the scenario's names, tunables flat.
inline constexpr int kJobSchemaVersion = 2;

// Every JobSpec member's row, in the scenario reference's order; rows with
// spec.in_scenario false travel on the wire only. `tunables` has no row of its own: each
// BlockTunables member has one (flat in JSON, as in a scenario).
const std::vector<FieldRow<JobSpec>>& JobRows();

// The row of one member: JobRow(&JobSpec::engine).spec.name == "ioengine".
template <class M>
const FieldRow<JobSpec>& JobRow(M JobSpec::*member) {
  return RowOf(JobRows(), member);
}

// Schema 1 name -> the row's name, for reading results written before the rename.
const std::vector<std::pair<std::string, std::string>>& JobOldNames();

// A schema 1 job object rewritten with schema 2 names (a schema 2 object unchanged).
nlohmann::json UpgradeJobJson(const nlohmann::json& j);

}  // namespace storbed
