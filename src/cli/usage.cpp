#include "src/cli/usage.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "src/verify/verdict.h"

namespace torchtv::cli {

namespace {

std::string lower(std::string s) {
  for (char &c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string joined(const std::vector<std::string> &items) {
  std::string out;
  for (const std::string &s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

size_t editDistance(const std::string &a, const std::string &b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

bool isNumber(const std::string &s) {
  if (s.empty()) return false;
  char *end = nullptr;
  std::strtod(s.c_str(), &end);
  return end && *end == '\0';
}

std::vector<std::string> commandNames(const CLI::App &app) {
  std::vector<std::string> names;
  for (const CLI::App *sub : app.get_subcommands([](const CLI::App *) { return true; }))
    names.push_back(sub->get_name());
  return names;
}

std::vector<std::string> optionNames(const CLI::App &app) {
  std::vector<std::string> names;
  for (const CLI::Option *o : app.get_options()) {
    for (const std::string &l : o->get_lnames()) names.push_back("--" + l);
    for (const std::string &s : o->get_snames()) names.push_back("-" + s);
  }
  return names;
}

// Is `token` (an argument starting with '-') an option `names` knows?
bool knownOption(const std::string &token, const std::vector<std::string> &names) {
  std::string name = token.substr(0, token.find('='));
  if (std::find(names.begin(), names.end(), name) != names.end()) return true;
  // -j4, -vv: a known short option with its value or repeated.
  return token.size() > 2 && token[1] != '-' &&
         std::find(names.begin(), names.end(), token.substr(0, 2)) != names.end();
}

std::string unknownOptionMessage(const std::string &token, const std::vector<std::string> &names,
                                 const std::string &command) {
  std::string name = token.substr(0, token.find('='));
  std::string out = "unknown option " + name;
  std::string suggestion = closestName(name, names);
  if (!suggestion.empty()) return out + "; did you mean " + suggestion + "?";
  return out + "; 'torchtv " + command + (command.empty() ? "" : " ") + "--help' lists the options";
}

// CLI11's "--name: message" without the option name when the message names it.
std::string cliMessage(const CLI::ParseError &e) {
  std::string text = e.what();
  if (text.rfind("The following argument was not expected: ", 0) == 0)
    return "unexpected argument '" + text.substr(41) + "'";
  if (text.rfind("The following arguments were not expected: ", 0) == 0)
    return "unexpected arguments: " + text.substr(43);
  if (text == "A subcommand is required") return "";
  if (text.size() > 12 && text.compare(text.size() - 12, 12, " is required") == 0)
    return "missing argument: " + text.substr(0, text.size() - 12);
  return text;
}

std::string explain(const CLI::App &app, const CLI::ParseError &e, const std::vector<std::string> &args) {
  std::vector<std::string> commands = commandNames(app);
  std::string commandList = "commands are: " + joined(commands);
  std::vector<std::string> globalOptions = optionNames(app);
  size_t at = 0;
  for (; at < args.size() && !args[at].empty() && args[at][0] == '-'; ++at)
    if (args[at] == "--") break;
    else if (!knownOption(args[at], globalOptions)) return unknownOptionMessage(args[at], globalOptions, "");
  if (at >= args.size() || args[at] == "--") return "a command is required; " + commandList;
  const std::string &command = args[at];
  const CLI::App *sub = nullptr;
  for (const CLI::App *s : app.get_subcommands([](const CLI::App *) { return true; }))
    if (s->get_name() == command) sub = s;
  if (!sub) {
    std::string suggestion = closestName(command, commands);
    return "unknown command '" + command + "'; " + (suggestion.empty() ? "" : "did you mean " + suggestion + "? ") +
           commandList;
  }
  std::vector<std::string> names = optionNames(*sub);
  names.insert(names.end(), globalOptions.begin(), globalOptions.end());
  for (size_t i = at + 1; i < args.size(); ++i) {
    const std::string &a = args[i];
    if (a == "--") break;
    if (a.size() > 1 && a[0] == '-' && !isNumber(a) && !knownOption(a, names))
      return unknownOptionMessage(a, names, command);
  }
  std::string message = cliMessage(e);
  return message.empty() ? "a command is required; " + commandList : message;
}

}  // namespace

CLI::Validator choiceValidator(std::vector<std::pair<std::string, int>> choices, const std::string &what) {
  std::vector<std::string> names;
  for (const auto &c : choices) names.push_back(c.first);
  std::string list = joined(names);
  return CLI::Validator(
      [choices, what, list](std::string &input) -> std::string {
        for (const auto &[name, value] : choices)
          if (lower(input) == name) {
            input = std::to_string(value);
            return "";
          }
        return "unknown " + what + " '" + input + "'; one of " + list;
      },
      "one of: " + list);
}

CLI::Validator atLeast(double min, const std::string &what, const std::string &note, bool integer) {
  return CLI::Validator(
      [min, what, note, integer](std::string &input) -> std::string {
        char *end = nullptr;
        double v = std::strtod(input.c_str(), &end);
        bool number = !input.empty() && end && *end == '\0' && std::isfinite(v);
        if (number && integer) number = v == std::floor(v);
        char bound[32];
        std::snprintf(bound, sizeof bound, "%g", min);
        std::string expected = "give " + std::string(integer ? "a whole number of " : "") + what + " >= " + bound +
                               (note.empty() ? "" : " (" + note + ")");
        if (!number) return "'" + input + "' is not " + (integer ? "a whole number; " : "a number; ") + expected;
        if (v < min) return input + " is out of range; " + expected;
        return "";
      },
      what);
}

std::string closestName(const std::string &word, const std::vector<std::string> &names) {
  std::string best;
  size_t bestDistance = 0;
  for (const std::string &n : names) {
    size_t d = editDistance(lower(word), lower(n));
    if (best.empty() || d < bestDistance) best = n, bestDistance = d;
  }
  // A typo: a couple of letters off, or a prefix of the name.
  size_t stem = word.find_first_not_of('-');
  bool prefix = !best.empty() && stem != std::string::npos && word.size() - stem >= 3 &&
                std::any_of(names.begin(), names.end(), [&](const std::string &n) {
                  if (n.rfind(word, 0) == 0) return best = n, true;
                  return false;
                });
  size_t letters = stem == std::string::npos ? 0 : word.size() - stem;
  bool close = !best.empty() && bestDistance <= std::max<size_t>(2, letters / 4) && 2 * bestDistance < letters;
  return prefix || close ? best : "";
}

int reportUsageError(CLI::App &app, const CLI::ParseError &e, int argc, char **argv) {
  if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);  // --help, --version
  std::vector<std::string> args(argv + 1, argv + argc);
  std::fprintf(stderr, "torchtv: error: %s\n", explain(app, e, args).c_str());
  return exitCode(Verdict::Error);
}

}  // namespace torchtv::cli
