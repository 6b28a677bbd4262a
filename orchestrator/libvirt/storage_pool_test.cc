#include "libvirt/storage_pool.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <deque>
#include <filesystem>
#include <fstream>
#include <regex>

namespace storbed {
namespace {

TEST(SharedVolumeNameTest, NamedByBaseNameAndIdentityStableAndChangesWithTheFile) {
  const std::string path = std::filesystem::temp_directory_path() /
                           ("vmlinuz 6.1+x-" + std::to_string(::getpid()));
  std::ofstream(path) << "kernel";
  const std::string a = SharedVolumeName(path);
  EXPECT_EQ(a, SharedVolumeName(path));
  EXPECT_EQ(a.rfind("vmlinuz_6.1_x-", 0), 0u) << a;
  EXPECT_EQ(a.size(), std::string("vmlinuz_6.1_x-").size() + std::to_string(::getpid()).size() + 17);
  // The same file by a relative path is the same volume.
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(std::filesystem::path(path).parent_path());
  EXPECT_EQ(SharedVolumeName(std::filesystem::path(path).filename().string()), a);
  std::filesystem::current_path(cwd);
  std::ofstream(path, std::ios::app) << "more";
  EXPECT_NE(SharedVolumeName(path), a);
  std::filesystem::remove(path);
  EXPECT_THROW(SharedVolumeName(path), std::runtime_error);
}

// Regression: the path was cut out between "<path>" and "</path>" as written, so a pool dir
// with '&' came back as ".../a&amp;b" (expected "/srv/a&b/pool").
TEST(PoolTargetPathTest, IsTheTargetsPathDecoded) {
  EXPECT_EQ(PoolTargetPath(R"(<pool type="dir">
  <name>storbed</name>
  <source>
  </source>
  <target>
    <path>/srv/a&amp;b/pool</path>
    <permissions><mode>0711</mode></permissions>
  </target>
</pool>)"),
            "/srv/a&b/pool");
  EXPECT_EQ(PoolTargetPath("<pool type='dir'><source><dir path='/x'/></source></pool>"), "");
  EXPECT_EQ(PoolTargetPath("not xml"), "");
}

TEST(TempVolumeNameTest, CarriesARunSessionPrefixSoCleanupFindsItsOwner) {
  const std::string name = TempVolumeName("vmlinuz-00ff", 1714564800, 4242, 0x1a);
  EXPECT_EQ(name, "storbed-20240501T120000-4242-vmlinuz-00ff.part1a");
  // The pattern cleanup/domain_owner.cc SessionOfName reads the owner from.
  EXPECT_TRUE(std::regex_search(name, std::regex(R"(^storbed-\d{8}T\d{6}-\d{1,9}-)")));
}

// Scripted libvirt answers, in call order; an exhausted script answers success.
template <typename T>
T Next(std::deque<T>& script, T otherwise = T{}) {
  if (script.empty()) return otherwise;
  T v = script.front();
  script.pop_front();
  return v;
}

VirStatus Err(int code) { return {code, "libvirt says " + std::to_string(code)}; }

class FakePoolSetup : public PoolSetupCalls {
 public:
  VirStatus Lookup() override { return Record("lookup", lookup); }
  VirStatus CreateTransient() override { return Record("create", create); }
  VirStatus IsActive(bool* active) override {
    const VirStatus s = Next(is_active);
    *active = Next(actives, true);
    calls.push_back(!s.ok() ? "active?error" : *active ? "active?yes" : "active?no");
    return s;
  }
  VirStatus Start() override { return Record("start", start); }
  void Pause() override { calls.push_back("pause"); }

  std::deque<VirStatus> lookup, create, is_active, start;
  std::deque<bool> actives;
  std::vector<std::string> calls;

 private:
  VirStatus Record(const std::string& call, std::deque<VirStatus>& script) {
    calls.push_back(call);
    return Next(script);
  }
};

using Calls = std::vector<std::string>;

void Ensure(FakePoolSetup& fake) { EnsurePoolActive(fake, "test:///x", "storbed", "/pool"); }

TEST(EnsurePoolActiveTest, AnActivePoolIsUsedAsItIs) {
  FakePoolSetup fake;
  Ensure(fake);
  EXPECT_EQ(fake.calls, (Calls{"lookup", "active?yes"}));
}

TEST(EnsurePoolActiveTest, NoPoolIsCreated) {
  FakePoolSetup fake;
  fake.lookup = {Err(VIR_ERR_NO_STORAGE_POOL)};
  Ensure(fake);
  EXPECT_EQ(fake.calls, (Calls{"lookup", "create"}));
}

// Before the fix only a create refusal was looked past; a start refused because another
// caller was starting the pool ("is starting up") failed the boot.
TEST(EnsurePoolActiveTest, ACreateOrStartThatLostToAnotherCallerLooksAgainUntilActive) {
  FakePoolSetup fake;
  fake.lookup = {Err(VIR_ERR_NO_STORAGE_POOL)};
  fake.create = {Err(VIR_ERR_OPERATION_FAILED)};  // "pool 'storbed' already exists"
  fake.actives = {false, true};
  fake.start = {Err(VIR_ERR_OPERATION_INVALID)};  // "is starting up"
  Ensure(fake);
  EXPECT_EQ(fake.calls, (Calls{"lookup", "create", "pause", "lookup", "active?no", "start", "pause",
                               "lookup", "active?yes"}));
}

TEST(EnsurePoolActiveTest, APoolThatVanishedAfterAFailedStartIsCreatedAgain) {
  FakePoolSetup fake;
  fake.lookup = {Err(VIR_ERR_NO_STORAGE_POOL), {}, Err(VIR_ERR_NO_STORAGE_POOL)};
  fake.create = {Err(VIR_ERR_OPERATION_INVALID)};  // "already active"... then gone
  fake.is_active = {Err(VIR_ERR_NO_STORAGE_POOL)};
  Ensure(fake);
  EXPECT_EQ(fake.calls, (Calls{"lookup", "create", "pause", "lookup", "active?error", "pause",
                               "lookup", "create"}));
}

TEST(EnsurePoolActiveTest, OtherFailuresThrowWithLibvirtsCode) {
  FakePoolSetup fake;
  fake.lookup = {Err(VIR_ERR_NO_STORAGE_POOL)};
  fake.create = {Err(VIR_ERR_SYSTEM_ERROR)};  // e.g. cannot create the directory
  try {
    Ensure(fake);
    FAIL() << "no throw";
  } catch (const LibvirtError& e) {
    EXPECT_EQ(e.code(), VIR_ERR_SYSTEM_ERROR);
    EXPECT_EQ(e.operation(), "create storage pool storbed at /pool");
  }
  FakePoolSetup start;
  start.actives = {false};
  start.start = {Err(VIR_ERR_INTERNAL_ERROR)};
  EXPECT_THROW(Ensure(start), LibvirtError);
}

TEST(EnsurePoolActiveTest, ADirTakenByAPoolOfAnotherNameFailsAfterAFewRounds) {
  FakePoolSetup fake;
  for (int i = 0; i < 10; ++i) {
    fake.lookup.push_back(Err(VIR_ERR_NO_STORAGE_POOL));
    fake.create.push_back(Err(VIR_ERR_OPERATION_FAILED));  // "Storage source conflict"
  }
  EXPECT_THROW(Ensure(fake), LibvirtError);
  EXPECT_EQ(std::count(fake.calls.begin(), fake.calls.end(), "create"), 4);
}

TEST(EnsurePoolActiveTest, APoolThatNeverBecomesActiveFailsInsteadOfWaitingForever) {
  FakePoolSetup fake;
  for (int i = 0; i < 1000; ++i) {
    fake.actives.push_back(false);
    fake.start.push_back(Err(VIR_ERR_OPERATION_INVALID));
  }
  EXPECT_THROW(Ensure(fake), LibvirtError);
  EXPECT_EQ(std::count(fake.calls.begin(), fake.calls.end(), "pause"), 199);
}

class FakeSharedVolume : public SharedVolumeCalls {
 public:
  VolumeState State(const std::string& name) override {
    calls.push_back("state " + name);
    return Next(states, VolumeState::Complete);
  }
  void UploadTemp(const std::string& temp) override {
    calls.push_back("upload " + temp);
    if (upload_fails) throw LibvirtError("test:///x", "upload", "the stream broke");
  }
  VirStatus CopyFrom(const std::string& name, const std::string& temp) override {
    calls.push_back("copy " + temp + " to " + name);
    return Next(copies);
  }
  VirStatus Delete(const std::string& name) override {
    calls.push_back("delete " + name);
    return Next(deletes);
  }
  void Pause() override { calls.push_back("pause"); }

  std::deque<VolumeState> states;
  std::deque<VirStatus> copies, deletes;
  bool upload_fails = false;
  Calls calls;
};

void Publish(FakeSharedVolume& fake) { PublishShared(fake, "test:///x", "k", "t"); }

using VS = VolumeState;

TEST(PublishSharedTest, ACompleteVolumeIsReusedWithoutAnUpload) {
  FakeSharedVolume fake;
  Publish(fake);
  EXPECT_EQ(fake.calls, (Calls{"state k"}));
}

TEST(PublishSharedTest, AMissingVolumeIsUploadedUnderTheTempNameThenCopiedAndTheTempDeleted) {
  FakeSharedVolume fake;
  fake.states = {VS::Missing};
  Publish(fake);
  EXPECT_EQ(fake.calls, (Calls{"state k", "upload t", "copy t to k", "delete t"}));
}

// The race the boot lock used to hide: two uploaders of one kernel. The loser's copy is
// refused; it waits for the winner's copy and uses it (before: the loser deleted the
// winner's volume mid-upload, or a reader booted a half-written kernel).
TEST(PublishSharedTest, TheLoserOfARaceWaitsForTheWinnersCopyAndUsesIt) {
  FakeSharedVolume fake;
  fake.states = {VS::Missing, VS::Building, VS::Building, VS::Complete};
  fake.copies = {Err(VIR_ERR_STORAGE_VOL_EXIST)};
  Publish(fake);
  EXPECT_EQ(fake.calls, (Calls{"state k", "upload t", "copy t to k", "state k", "pause", "state k",
                               "pause", "state k", "delete t"}));
}

// What libvirt 9.0 answers a copy to a taken name: INTERNAL_ERROR "already in use".
TEST(PublishSharedTest, ACopyRefusedWithAnyCodeWhileAVolumeIsThereWaitsForIt) {
  FakeSharedVolume fake;
  fake.states = {VS::Missing, VS::Building, VS::Complete};
  fake.copies = {Err(VIR_ERR_INTERNAL_ERROR)};
  Publish(fake);
  EXPECT_EQ(fake.calls,
            (Calls{"state k", "upload t", "copy t to k", "state k", "state k", "delete t"}));
}

TEST(PublishSharedTest, AReaderWaitsWhileAnotherUploadersCopyIsBuilt) {
  FakeSharedVolume fake;
  fake.states = {VS::Building, VS::Complete};
  Publish(fake);
  EXPECT_EQ(fake.calls, (Calls{"state k", "pause", "state k"}));
}

TEST(PublishSharedTest, WhenTheWinnersCopyFailsTheLoserPublishesItsOwnUpload) {
  FakeSharedVolume fake;
  fake.states = {VS::Missing, VS::Building, VS::Missing};
  fake.copies = {Err(VIR_ERR_STORAGE_VOL_EXIST), {}};
  Publish(fake);
  EXPECT_EQ(fake.calls, (Calls{"state k", "upload t", "copy t to k", "state k", "pause", "state k",
                               "copy t to k", "delete t"}));
}

TEST(PublishSharedTest, AnIncompleteLeftoverIsReplaced) {
  FakeSharedVolume fake;
  fake.states = {VS::Incomplete, VS::Missing};
  Publish(fake);
  EXPECT_EQ(fake.calls,
            (Calls{"state k", "delete k", "state k", "upload t", "copy t to k", "delete t"}));
}

TEST(PublishSharedTest, AnIncompleteLookingVolumeLibvirtIsStillBuildingIsWaitedFor) {
  FakeSharedVolume fake;
  fake.states = {VS::Incomplete, VS::Complete};
  fake.deletes = {Err(VIR_ERR_OPERATION_INVALID)};  // "still being allocated"
  Publish(fake);
  EXPECT_EQ(fake.calls, (Calls{"state k", "delete k", "pause", "state k"}));
}

TEST(PublishSharedTest, ACopyThatFailsWithNothingThereThrowsAndDeletesTheTemp) {
  FakeSharedVolume fake;
  fake.states = {VS::Missing, VS::Missing};
  fake.copies = {Err(VIR_ERR_SYSTEM_ERROR)};
  try {
    Publish(fake);
    FAIL() << "no throw";
  } catch (const LibvirtError& e) {
    EXPECT_EQ(e.code(), VIR_ERR_SYSTEM_ERROR);
  }
  EXPECT_EQ(fake.calls, (Calls{"state k", "upload t", "copy t to k", "state k", "delete t"}));
}

TEST(PublishSharedTest, AFailedUploadDeletesNothingItDidNotCreate) {
  FakeSharedVolume fake;
  fake.states = {VS::Missing};
  fake.upload_fails = true;
  EXPECT_THROW(Publish(fake), LibvirtError);
  EXPECT_EQ(fake.calls, (Calls{"state k", "upload t"}));
}

TEST(PublishSharedTest, AVolumeThatStaysBuildingFailsInsteadOfWaitingForever) {
  FakeSharedVolume fake;
  fake.states.assign(5000, VS::Building);
  EXPECT_THROW(Publish(fake), LibvirtError);
  EXPECT_EQ(std::count(fake.calls.begin(), fake.calls.end(), "pause"), 2400);
}

}  // namespace
}  // namespace storbed
