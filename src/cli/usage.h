// Usage errors in torchtv's own words.
//
// Note [Usage errors]
// CLI11's messages name its internals ("arguments were not expected",
// "{github->4,json->1} OR {4,1} FAILED", a 309-digit upper bound). Options
// with a fixed set of values or a range use the validators below, which say
// what was wrong and what is accepted; a parse error is then re-worded from
// the command line itself (an unknown command or option, with the closest
// known name as a suggestion). Every usage error exits 3, as bad input does.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

namespace torchtv::cli {

// Accepts one of `choices` (case-insensitive) and hands CLI11 its value as a
// number; anything else: "unknown WHAT 'x'; one of a, b, c".
CLI::Validator choiceValidator(std::vector<std::pair<std::string, int>> choices, const std::string &what);

template <class E>
CLI::Option *addChoiceOption(CLI::App &cmd, const std::string &name, E &value,
                             const std::vector<std::pair<std::string, E>> &choices, const std::string &what,
                             const std::string &help) {
  std::vector<std::pair<std::string, int>> numbered;
  for (const auto &[text, v] : choices) numbered.emplace_back(text, static_cast<int>(v));
  return cmd.add_option(name, value, help)->transform(choiceValidator(std::move(numbered), what));
}

// A number >= min (an integer when `integer`); `what` says what it counts
// ("seconds"), `note` what a special value means ("0: no limit").
CLI::Validator atLeast(double min, const std::string &what, const std::string &note = "", bool integer = false);

// The closest of `names` to `word` when it is close enough to be a typo, else "".
std::string closestName(const std::string &word, const std::vector<std::string> &names);

// Prints a parse error in torchtv's words on stderr and returns the exit code:
// 0 for --help/--version, 3 otherwise.
int reportUsageError(CLI::App &app, const CLI::ParseError &e, int argc, char **argv);

}  // namespace torchtv::cli
