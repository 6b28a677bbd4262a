#include "strict_json.h"

#include <set>
#include <stdexcept>
#include <vector>

namespace storbed {
namespace {

// One open object or array while parsing, with its path for the message.
struct Frame {
  bool object = true;
  std::string where;  // "disk", "jobs[1]", "" for the top level
  std::set<std::string> keys;
  std::string last_key;
  size_t index = 0;  // arrays: the next element's index
};

// The path of the next value inside `parent`.
std::string ChildPath(Frame& parent) {
  if (parent.object)
    return parent.where.empty() ? parent.last_key : parent.where + "." + parent.last_key;
  return parent.where + "[" + std::to_string(parent.index++) + "]";
}

}  // namespace

std::string JsonDepthProblem(std::string_view text, int max_depth) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;  // the escaped character cannot end the string
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth)
        return "arrays and objects nest deeper than " + std::to_string(max_depth) +
               " levels (at byte " + std::to_string(i + 1) + ")";
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return "";
}

nlohmann::json ParseJson(std::string_view text) {
  if (std::string why = JsonDepthProblem(text); !why.empty()) throw std::invalid_argument(why);
  return nlohmann::json::parse(text);
}

nlohmann::json ParseJsonOrDiscarded(std::string_view text) {
  if (!JsonDepthProblem(text).empty()) return nlohmann::json(nlohmann::json::value_t::discarded);
  return nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
}

std::string WithoutJsonTag(const std::string& what) {
  if (what.rfind("[json.exception", 0) == 0 && what.find("] ") != std::string::npos)
    return what.substr(what.find("] ") + 2);
  return what;
}

nlohmann::json ParseJsonNoDuplicateKeys(const std::string& text) {
  using nlohmann::json;
  std::vector<Frame> stack;
  std::string duplicate;
  const json::parser_callback_t check = [&](int, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start: {
        Frame f;
        f.object = event == json::parse_event_t::object_start;
        if (!stack.empty()) f.where = ChildPath(stack.back());
        stack.push_back(std::move(f));
        break;
      }
      case json::parse_event_t::key:
        if (stack.empty()) break;
        stack.back().last_key = parsed.get<std::string>();
        if (!stack.back().keys.insert(stack.back().last_key).second && duplicate.empty()) {
          const std::string& where = stack.back().where;
          duplicate = "key \"" + stack.back().last_key + "\" appears twice in one object (in " +
                      (where.empty() ? "the top level" : where) + ")";
        }
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        if (!stack.empty()) stack.pop_back();
        break;
      case json::parse_event_t::value:
        if (!stack.empty() && !stack.back().object) ++stack.back().index;
        break;
    }
    return true;
  };
  if (const std::string why = JsonDepthProblem(text); !why.empty())
    throw std::invalid_argument("not valid JSON: " + why);
  json doc;
  try {
    doc = json::parse(text, check);
  } catch (const json::exception& e) {
    // parse_error, and out_of_range for a number such as 1e400 that no double holds.
    throw std::invalid_argument("not valid JSON: " + WithoutJsonTag(e.what()));
  }
  if (!duplicate.empty()) throw std::invalid_argument(duplicate);
  return doc;
}

}  // namespace storbed
