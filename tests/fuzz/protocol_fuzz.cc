// Agent protocol lines, as either side reads them: a message or a ProtocolError with the
// raw line. A line that decodes must encode and decode again to the same message type
// (the host re-sends nothing, but the agent's replies are written by EncodeMessage).
#include <cstdlib>

#include "fuzz_text.h"
#include "protocol.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  storbed::Message message;
  try {
    message = storbed::DecodeMessage(storbed::fuzz::Text(data, size));
  } catch (const storbed::ProtocolError&) {
    return 0;
  }
  const storbed::Message again = storbed::DecodeMessage(storbed::EncodeMessage(message));
  if (again.index() != message.index()) std::abort();
  return 0;
}
