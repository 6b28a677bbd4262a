#include "scenario/scenario_explain.h"

#include <sstream>
#include <stdexcept>

#include "input_file.h"
#include "quoted_value.h"
#include "scenario/scenario_fields.h"
#include "strict_json.h"

namespace storbed {
namespace {

std::string Allowed(const FieldSpec& f) {
  std::string out;
  for (const auto& a : f.allowed) out += (out.empty() ? "" : ", ") + a;
  return out;
}

std::string Range(const FieldSpec& f) {
  if (f.type != FieldType::Integer && f.type != FieldType::Size && f.type != FieldType::Number &&
      f.type != FieldType::Duration)
    return "";
  return FormatFieldValue(f, f.min) + " .. " + FormatFieldValue(f, f.max);
}

}  // namespace

std::string QualifiedFieldName(const FieldSpec& f) {
  return f.section == "scenario" ? f.name : f.section + "." + f.name;
}

std::string ExplainFields(const std::string& field) {
  std::ostringstream out;
  bool found = false;
  for (const auto& f : ScenarioFields()) {
    if (!field.empty() && field != f.name && field != QualifiedFieldName(f)) continue;
    found = true;
    out << QualifiedFieldName(f) << "  (" << TypeName(f.type);
    if (!f.unit.empty()) out << ", " << f.unit;
    out << ")\n  " << f.help << "\n";
    out << "  default: " << (f.default_json.empty() ? "(required)" : f.default_json) << "\n";
    if (!f.allowed.empty()) out << "  allowed: " << Allowed(f) << "\n";
    if (!Range(f).empty()) out << "  range: " << Range(f) << "\n";
    if (!f.fio.empty()) out << "  fio: " << f.fio << " (storbed run --fio maps it as is)\n";
  }
  if (!found) throw std::invalid_argument("no scenario field named '" + field + "'");
  return out.str();
}

std::string ScenarioReferenceMarkdown() {
  std::ostringstream out;
  out << "# Scenario reference\n\n"
         "Generated from the field rows (`common/job_fields.cc` for jobs,\n"
         "`orchestrator/scenario/scenario_fields.cc` for the rest) by\n"
         "`storbed scenario explain --markdown`; a unit test keeps this file in step.\n\n"
         "A scenario is a JSON object: top-level fields, a `machine` object, a `disk` object\n"
         "and a `jobs` list. Unknown fields and bad values are errors naming the file, the\n"
         "field and the reason. Sizes take a number of bytes or a string with a k, m, g or t\n"
         "suffix (powers of 1024). The file is a regular file of at most "
      << (kMaxInputFileBytes >> 20)
      << " MiB (so is a fio job\n"
         "file and an inventory; results.json at most 512 MiB), its arrays and objects nest\n"
         "at most "
      << kMaxJsonDepth
      << " levels deep, and no object may give a key twice.\n"
         "A message quotes at most "
      << kMaxQuotedBytes
      << " bytes of a bad value.\n\n"
         "Names (the scenario's, each job's, a fio section's) become parts of file names, run\n"
         "ids and guest names: 1 to 64 letters, digits, `.`, `_` and `-`, beginning with a\n"
         "letter or digit. `storbed run --dry-run` and `storbed run` check the same things\n"
         "before anything is created: the names, `disk.backing` (an existing regular file or\n"
         "block device; FIFOs, character devices and /proc or /sys files are refused; with\n"
         "`allow_writes`, a device that is mounted, held by md, LVM or dm-crypt, or swap is\n"
         "refused), `machine.kernel` (a bzImage) and its modules' release, the agent (a static\n"
         "x86-64 ELF), and the free space in `--work-dir` for the backings storbed makes (plus\n"
         "512 MiB), and `disk.passthrough` gets the safety checks of docs/passthrough.md.\n"
         "With write jobs a named backing must be writable, and a block device reached\n"
         "through a symbolic link is refused; with read jobs a file backing must have no\n"
         "holes; every job's region must end within it. Each job's IO buffers (bs x iodepth\n"
         "x numjobs, one IO in flight for a synchronous engine, plus the mmap window or\n"
         "region x numjobs) must fit in half of `machine.memory` in a guest and half of the\n"
         "host's MemAvailable on bare metal, which needs root. A `matrix_exclude` that drops\n"
         "every run, a `--work-dir` storbed cannot write and a `--history` file that cannot\n"
         "be made or written are refused too.\n\n"
         "Any machine, disk or job field (unless marked one value) may be a JSON list: the\n"
         "cartesian product becomes runs (see docs/matrices.md for matrix_exclude, repeats,\n"
         "warmup and order, and for `storbed run --fio`). A matrix of more than 10000 runs\n"
         "is refused before it is expanded; `--max-runs N` raises the limit.\n";
  std::string section;
  for (const auto& f : ScenarioFields()) {
    if (f.section != section) {
      section = f.section;
      out << "\n## " << (section == "scenario" ? "top level" : section) << "\n\n"
          << "| field | type | default | allowed | meaning |\n|---|---|---|---|---|\n";
    }
    std::string allowed = f.allowed.empty() ? Range(f) : Allowed(f);
    if (!f.unit.empty() && !allowed.empty()) allowed += " " + f.unit;
    out << "| `" << f.name << "` | " << TypeName(f.type) << " | "
        << (f.default_json.empty() ? "required" : "`" + f.default_json + "`") << " | "
        << allowed << " | " << f.help
        << (f.section != "scenario" && !f.matrix ? " One value (not a list)." : "")
        << (f.fio.empty() ? "" : " fio: `" + f.fio + "`.") << " |\n";
  }
  return out.str();
}

}  // namespace storbed
