// JUnit XML of a compare or gate, the format Jenkins and GitLab read unchanged: one
// testsuite, one testcase per cell and metric (classname the cell, name the metric). A
// worse verdict of a primary metric is a failure whose message is the verdict line; a gate's
// "cannot judge" is an error (it could not see a change of the size it guards);
// inconclusive and too few runs are skipped with the reason; the rest pass (a secondary
// metric's worse verdict included: it never sets the exit code, so it never fails the job). A gate that is not comparable is one
// failing testcase "environment" naming the items that differ.
#pragma once

#include <string>

#include "reports/compare.h"
#include "xml_escape.h"

namespace storbed {

std::string JunitXml(const CompareReport& report, const std::string& suite_name,
                     const std::string& timestamp);

}  // namespace storbed
