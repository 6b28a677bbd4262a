// Text about scenario fields, generated from the field table: `storbed scenario explain`
// and docs/scenarios.md come from here, so they cannot drift from the parser.
#pragma once

#include <string>

namespace storbed {

struct FieldSpec;

// A field's name as explain takes it: "bs" at the top level, "job.bs" in a section.
std::string QualifiedFieldName(const FieldSpec& f);

// One field ("job.bs" or "bs") or, with an empty name, every field. Throws
// std::invalid_argument naming the unknown field.
std::string ExplainFields(const std::string& field);

// The whole reference as Markdown (docs/scenarios.md).
std::string ScenarioReferenceMarkdown();

}  // namespace storbed
