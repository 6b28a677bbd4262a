#include "images/image_builder.h"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "images/decompress.h"
#include "images/file_digest.h"
#include "images/file_io.h"
#include "images/image_cache.h"
#include "images/image_error.h"
#include "images/initramfs.h"
#include "images/module_resolver.h"
#include "images/pvh_kernel.h"

namespace storbed {

namespace fs = std::filesystem;
namespace {

// Bump when the archive layout changes, so old cache entries are not reused.
constexpr std::string_view kFormatVersion = "storbed-initramfs-v1";

// Everything the initrd is made of, read and decompressed.
struct Inputs {
  InitramfsContents contents;
  std::vector<std::string> builtin;
  std::string agent_sha256;
  std::string kernel_sha256;
};

// Fields are length-prefixed so ("ab","c") and ("a","bc") hash differently.
void HashField(Sha256& sha, std::string_view field) {
  sha.Update(std::to_string(field.size()) + ":");
  sha.Update(field);
}

std::string ContentHash(const Inputs& in) {
  Sha256 sha;
  HashField(sha, kFormatVersion);
  HashField(sha, in.contents.release);
  HashField(sha, in.contents.agent);
  // The kernel is hashed too although it is not in the initrd: an image is a kernel+initrd
  // pair, and modules only load into the exact kernel build they came from.
  HashField(sha, in.kernel_sha256);
  for (const InitramfsModule& m : in.contents.modules) {
    HashField(sha, m.name);
    HashField(sha, m.path);
    HashField(sha, m.bytes);
  }
  for (const std::string& b : in.builtin) HashField(sha, "builtin:" + b);
  return sha.FinalHex();
}

std::string ManifestJson(const Inputs& in, const std::string& content_hash) {
  nlohmann::json modules = nlohmann::json::array();
  for (const InitramfsModule& m : in.contents.modules) {
    modules.push_back({{"name", m.name},
                       {"path", InitramfsModulePath(in.contents.release, m.path)},
                       {"sha256", Sha256Hex(m.bytes)}});
  }
  // No host paths here: the archive must depend only on what the hash covers.
  nlohmann::json j = {{"format", kFormatVersion},
                      {"content_hash", content_hash},
                      {"kernel_release", in.contents.release},
                      {"kernel_sha256", in.kernel_sha256},
                      {"agent_sha256", in.agent_sha256},
                      {"modules", modules},
                      {"builtin", in.builtin}};
  return j.dump(2) + "\n";
}

void RequireFile(const std::string& path, const std::string& what) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw ImageError(path, what + " " + path + " does not exist");
  if (!fs::is_regular_file(path, ec)) {
    throw ImageError(path, what + " " + path + " is not a regular file");
  }
}

Inputs ReadInputs(const ImageRequest& request) {
  if (request.cache_dir.empty()) throw ImageError("", "no image cache directory given");
  RequireFile(request.agent_path, "agent binary");
  RequireFile(request.kernel.image_path, "kernel image");
  Inputs in;
  in.contents.release = request.kernel.release;
  in.contents.agent = ReadFileBytes(request.agent_path);
  in.agent_sha256 = Sha256Hex(in.contents.agent);
  in.kernel_sha256 = Sha256Hex(ReadFileBytes(request.kernel.image_path));

  ModulePlan plan = ModuleIndex::Load(request.kernel.modules_dir).Resolve(request.modules);
  in.builtin = plan.builtin;
  for (const ModuleFile& m : plan.load_order) {
    std::string file = request.kernel.modules_dir + "/" + m.path;
    std::string bytes = DecompressModule(file, ReadFileBytes(file));
    // finit_module would refuse it in the guest with a bare ENOEXEC; say which file here.
    if (!bytes.starts_with("\x7f"
                           "ELF")) {
      throw ImageError(file, "kernel module " + file + " is not an ELF file once decompressed");
    }
    in.contents.modules.push_back(InitramfsModule{
        .name = m.name, .path = StripCompressionSuffix(m.path), .bytes = std::move(bytes)});
  }
  return in;
}

uint64_t FileSize(const std::string& path) {
  std::error_code ec;
  uint64_t size = fs::file_size(path, ec);
  if (ec) throw ImageError(path, "cannot stat " + path + ": " + ec.message());
  return size;
}

std::string KernelConfigSha256(const GuestKernel& kernel) {
  std::error_code ec;
  const fs::path image = fs::canonical(kernel.image_path, ec);
  if (ec) return "";
  const fs::path config = image.parent_path() / ("config-" + kernel.release);
  if (!fs::is_regular_file(config, ec)) return "";
  return Sha256Hex(ReadFileBytes(config.string()));
}

}  // namespace

GuestImage BuildGuestImage(const ImageRequest& request) {
  Inputs in = ReadInputs(request);
  GuestImage image;
  image.kernel_path = request.kernel.image_path;
  image.kernel_release = request.kernel.release;
  image.kernel_sha256 = in.kernel_sha256;
  image.kernel_config_sha256 = KernelConfigSha256(request.kernel);
  image.boot_kernel_path = BootableKernel(image.kernel_path, in.kernel_sha256, request.cache_dir,
                                          &image.boot_kernel_note);
  image.content_hash = ContentHash(in);
  for (const InitramfsModule& m : in.contents.modules) image.modules.push_back(m.name);
  image.builtin = in.builtin;

  std::string entry_dir = request.cache_dir + "/" + image.content_hash;
  image.initrd_path = entry_dir + "/initrd.cpio";
  // initrd.cpio is renamed into place last, so its presence means the entry is complete.
  if (IsRegularFile(image.initrd_path)) {
    image.from_cache = true;
    MarkCacheEntryUsed(entry_dir);  // `storbed image gc` removes the least recently used
    image.initrd_bytes = FileSize(image.initrd_path);
    return image;
  }
  std::error_code ec;
  fs::create_directories(entry_dir, ec);
  if (ec) {
    throw ImageError(entry_dir,
                     "cannot create image cache directory " + entry_dir + ": " + ec.message());
  }
  in.contents.manifest_json = ManifestJson(in, image.content_hash);
  WriteFileAtomic(entry_dir + "/image.json", in.contents.manifest_json);
  AtomicFile initrd(image.initrd_path);
  image.initrd_bytes = WriteInitramfs(in.contents, initrd.stream());
  initrd.Commit();
  return image;
}

std::string DescribeImage(const GuestImage& image) {
  std::ostringstream out;
  auto list = [](const std::vector<std::string>& names) {
    if (names.empty()) return std::string("(none)");
    std::string joined;
    for (const std::string& n : names) joined += (joined.empty() ? "" : ", ") + n;
    return joined;
  };
  out << "kernel:   " << image.kernel_path << "\n"
      << "boots:    " << image.boot_kernel_note << "\n"
      << "release:  " << image.kernel_release << "\n"
      << "modules:  " << list(image.modules) << "  (load order)\n"
      << "builtin:  " << list(image.builtin) << "  (in the kernel, not loaded)\n"
      << "initrd:   " << image.initrd_path << " (" << image.initrd_bytes << " bytes)\n"
      << "hash:     " << image.content_hash << "\n"
      << "source:   " << (image.from_cache ? "cached" : "built") << "\n";
  return out.str();
}

}  // namespace storbed
