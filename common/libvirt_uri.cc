#include "libvirt_uri.h"

namespace storbed {

bool UriIsOnThisHost(const std::string& uri) {
  const auto scheme_end = uri.find("://");
  if (scheme_end == std::string::npos) return true;  // an alias such as "qemu:///system"
  std::string rest = uri.substr(scheme_end + 3);
  std::string authority = rest.substr(0, rest.find('/'));
  if (const auto at = authority.rfind('@'); at != std::string::npos)
    authority = authority.substr(at + 1);
  std::string host;
  if (!authority.empty() && authority[0] == '[') {
    host = authority.substr(1, authority.find(']') - 1);
  } else {
    host = authority.substr(0, authority.find(':'));
  }
  return host.empty() || host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

}  // namespace storbed
