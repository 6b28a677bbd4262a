// JUnit XML of a compare or gate, the format Jenkins and GitLab read unchanged: one
// testsuite, one testcase per cell and metric (classname the cell, name the metric). A
// worse verdict is a failure whose message is the verdict line; inconclusive and too few
// runs are skipped with the reason; the rest pass. A gate that is not comparable is one
// failing testcase "environment" naming the items that differ.
#pragma once

#include <string>

#include "reports/compare.h"
#include "xml_escape.h"

namespace storbed {

std::string JunitXml(const CompareReport& report, const std::string& suite_name,
                     const std::string& timestamp);

}  // namespace storbed
