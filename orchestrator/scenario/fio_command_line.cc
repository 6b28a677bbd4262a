#include "scenario/fio_command_line.h"

#include "scenario/scenario.h"

namespace storbed {
namespace {

[[noreturn]] void Fail(const std::string& why) {
  throw ScenarioError(std::string(kFioArgsSource) + ": " + why);
}

// Shell words, up to the first unquoted control token. Newlines are spaces; a backslash
// before a newline joins the lines, as in a pasted multi-line command.
std::vector<std::string> ShellWords(const std::string& line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote) {
      if (c == quote) {
        quote = 0;
      } else if (c == '\\' && quote == '"' && i + 1 < line.size() &&
                 (line[i + 1] == '"' || line[i + 1] == '\\')) {
        word += line[++i];
      } else {
        word += c;
      }
      continue;
    }
    if (c == '\\' && i + 1 < line.size()) {
      if (line[i + 1] != '\n') {
        word += line[i + 1];
        in_word = true;
      }
      ++i;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
      continue;
    }
    if (!in_word && (c == '|' || c == ';' || c == '&' || c == '>' || c == '<' || c == '#'))
      return words;  // the rest belongs to the shell, not to fio
    word += c;
    in_word = true;
  }
  if (quote) Fail(std::string("unterminated ") + quote + " quote");
  if (in_word) words.push_back(word);
  return words;
}

bool IsFioProgram(const std::string& word) {
  return word == "fio" || word == "./fio" ||
         (word.size() > 4 && word.compare(word.size() - 4, 4, "/fio") == 0);
}

}  // namespace

std::string FioCommandLineToJobFile(const std::string& command_line) {
  std::vector<std::string> words = ShellWords(command_line);
  size_t first = 0;
  while (first < words.size() && (words[first] == "$" || words[first] == "sudo")) ++first;
  if (first < words.size() && IsFioProgram(words[first])) ++first;
  std::string global, jobs;
  std::string* section = &global;
  bool any_job = false;
  for (size_t i = first; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w.rfind("--", 0) != 0 || w.size() == 2)
      Fail("'" + w + "' is not a fio option (options start with --; give job files with --fio)");
    std::string option = w.substr(2);
    // getopt_long, as fio uses it, also takes "--filename /tmp/huge".
    if (option.find('=') == std::string::npos && i + 1 < words.size() &&
        words[i + 1].rfind("--", 0) != 0)
      option += "=" + words[++i];
    if (option.find('\n') != std::string::npos) Fail("'" + w + "' holds a newline");
    const size_t eq = option.find('=');
    const std::string key = option.substr(0, eq);
    if (key == "name") {
      if (eq == std::string::npos || eq + 1 == option.size()) Fail("--name needs a value");
      jobs += "[" + option.substr(eq + 1) + "]\n";
      section = &jobs;
      any_job = true;
      continue;
    }
    if (key == "output" || key == "output-format" || key == "minimal" || key == "eta" ||
        key == "section" || key == "client" || key == "server")
      Fail("'" + w + "' is an option of fio's program, not of a job; leave it out");
    *section += option + "\n";
  }
  // Without --name fio runs the options as one job of its own name.
  if (!any_job) return "[fio]\n" + global;
  return (global.empty() ? "" : "[global]\n" + global) + jobs;
}

FioImport ImportFioSource(const std::string& fio_path, const std::string& fio_args,
                          const std::vector<std::string>& targets, uint64_t max_runs) {
  if (!fio_args.empty())
    return ImportFio(FioCommandLineToJobFile(fio_args), kFioArgsSource, targets, max_runs);
  return ImportFioFile(fio_path, targets, max_runs);
}

}  // namespace storbed
