// The sampler parsers on recorded /proc and /sys texts, good, malformed and truncated.
#include "proc_parse.h"

#include <gtest/gtest.h>

namespace storbed {
namespace {

constexpr const char* kMeminfo =
    "MemTotal:        4018556 kB\n"
    "MemFree:         1234567 kB\n"
    "Buffers:           10240 kB\n"
    "Cached:          2097152 kB\n"
    "SwapCached:            0 kB\n"
    "Dirty:              4096 kB\n"
    "Writeback:             0 kB\n";

constexpr const char* kVmstat =
    "nr_free_pages 301234\n"
    "pgpgin 1000\n"
    "pgpgout 2000\n"
    "pgmajfault 7\n"
    "workingset_refault_anon 0\n"
    "workingset_refault_file 42\n";

constexpr const char* kStat =
    "cpu  200 0 100 5000 300 0 10 0 0 0\n"
    "cpu0 100 0 50 2500 150 0 5 0 0 0\n"
    "cpu1 100 0 50 2500 150 0 5 0 0 0\n"
    "intr 12345 0 0\n"
    "ctxt 999\n";

TEST(ProcParse, InflightSumsReadsAndWrites) {
  EXPECT_EQ(ParseInflight("       3        5\n"), 8u);
  EXPECT_EQ(ParseInflight("0 0"), 0u);
}

TEST(ProcParse, MalformedInflightThrows) {
  EXPECT_THROW(ParseInflight(""), ProcParseError);
  EXPECT_THROW(ParseInflight("       3\n"), ProcParseError);  // truncated
  EXPECT_THROW(ParseInflight("3 x\n"), ProcParseError);
  EXPECT_THROW(ParseInflight("3 4 5\n"), ProcParseError);
}

TEST(ProcParse, MeminfoTakesTheKeysInKb) {
  const auto kb = ParseMeminfo(kMeminfo, {"Cached", "Buffers", "Dirty", "Writeback"});
  EXPECT_EQ(kb.at("Cached"), 2097152u);
  EXPECT_EQ(kb.at("Buffers"), 10240u);
  EXPECT_EQ(kb.at("Dirty"), 4096u);
  EXPECT_EQ(kb.at("Writeback"), 0u);
  // "SwapCached" must not be taken for "Cached".
  EXPECT_EQ(kb.size(), 4u);
}

TEST(ProcParse, TruncatedOrMalformedMeminfoThrows) {
  const std::string text = kMeminfo;
  EXPECT_THROW(ParseMeminfo(text.substr(0, text.find("Dirty")), {"Dirty"}), ProcParseError);
  EXPECT_THROW(ParseMeminfo("Cached: lots kB\n", {"Cached"}), ProcParseError);
}

TEST(ProcParse, VmstatRequiredAndOptional) {
  const auto v = ParseVmstat(kVmstat, {"pgpgin", "pgpgout", "pgmajfault"},
                             {"workingset_refault_file", "not_in_this_kernel"});
  EXPECT_EQ(v.at("pgpgin"), 1000u);
  EXPECT_EQ(v.at("pgmajfault"), 7u);
  EXPECT_EQ(v.at("workingset_refault_file"), 42u);
  EXPECT_EQ(v.count("not_in_this_kernel"), 0u);
  EXPECT_THROW(ParseVmstat("pgpgin 1\n", {"pgpgin", "pgpgout"}, {}), ProcParseError);
  EXPECT_THROW(ParseVmstat("pgpgin -1\npgpgout 2\n", {"pgpgin", "pgpgout"}, {}), ProcParseError);
}

TEST(ProcParse, CpuTimesPerCpu) {
  const auto cpus = ParseCpuTimes(kStat);
  ASSERT_EQ(cpus.size(), 2u);
  EXPECT_EQ(cpus[1].cpu, 1);
  EXPECT_EQ(cpus[0].iowait, 150u);
  EXPECT_EQ(cpus[0].total, 100u + 50 + 2500 + 150 + 5);  // guest fields not added twice
}

TEST(ProcParse, TruncatedCpuLineThrows) {
  EXPECT_THROW(ParseCpuTimes("cpu0 100 0 50 2500\n"), ProcParseError);
  EXPECT_THROW(ParseCpuTimes("cpu  1 2 3 4 5 6 7 8\n"), ProcParseError);  // no cpuN at all
  EXPECT_THROW(ParseCpuTimes("cpuX 1 2 3 4 5 6 7 8\n"), ProcParseError);
}

}  // namespace
}  // namespace storbed
