// The manifest of `torchtv ci`: the pairs a CI job gates on, in TOML.
//
//   [defaults]                 # optional, for every pair
//   require = "real"           # or "rounded" (the default), "bitwise"
//   timeout = 600              # seconds per pair: capture and decision
//   report = "failures"        # HTML reports: "failures" (pairs not equivalent), "always", "never"
//   untrusted = true           # pair files come from untrusted changes: captured under --sandbox
//
//   [[pair]]
//   name = "rmsnorm"           # unique; names the report files
//   reference = "rmsnorm_reference.tvir"
//   production = "rmsnorm_production.tvir"
//
//   [[pair]]
//   name = "layernorm"
//   pair = "layernorm_train.py"   # a pair file, run through `torchtv verify`
//
//   [[pair]]
//   name = "golden"
//   graphs = "both.tvir"       # one file holding @reference and @production
//   args = ["--require", "bitwise"]   # more arguments for the check
//   assume = ["target in [0, 5)"]     # ranges you declare (--assume; Note [Declared input domains])
//
//   [[pair]]
//   name = "gqa"
//   pair = "gqa_attention.py"
//   expect = "unknown"         # or { grad_k = "unknown" }: Note [Expected verdicts]
//   why = "repeat_interleave has no semantics yet (#12)"
//
// Paths are relative to the manifest's folder.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/diagnostic.h"
#include "src/report/report.h"

namespace torchtv::cli {

enum class PairKind { GraphFiles, OneGraphFile, PairFile };

struct CiEntry {
  std::string name;
  PairKind kind = PairKind::GraphFiles;
  std::vector<std::string> files;  // resolved paths: 2, 1 or 1 by kind
  std::string require;             // "", "rounded", "real" or "bitwise"
  double timeoutSeconds = 600;
  ReportWhen report = ReportWhen::Failures;
  bool untrusted = false;          // a pair file's code runs under --sandbox (Note [The capture sandbox])
  std::vector<std::string> args;
  // Note [Expected verdicts]: output name -> the worst verdict the gate accepts for it; the
  // key "" stands for every output (and a pair undecided as a whole). Empty: nothing accepted.
  std::map<std::string, Verdict> expect;
  std::string why;                 // the manifest's reason for `expect`, shown in every report
  SourcePos pos;                   // where the entry is, for messages
};

// Note [Expected verdicts]
// A team adopts the gate on a repository where some pairs are not yet proven:
// `expect = "unknown"` (or "not_equivalent", a known bug) accepts that verdict
// or a better one for every output of the pair, `expect = { grad_k = "unknown" }`
// for the outputs named. An accepted output still shows its verdict everywhere,
// marked expected with the manifest's `why` (JUnit: skipped; SARIF: suppressed);
// the exit code is the worst verdict among the outputs not accepted, so the
// gate fails on a new failure only. An error is never accepted (the pair was not
// compared), and an expectation that is met by `equivalent` is listed as
// stale in the summary, so the manifest can be tightened.
// The verdict accepted for `output` of `e`, or nullopt.
std::optional<Verdict> expectedVerdict(const CiEntry &e, const std::string &output);

struct Manifest {
  std::string path;
  std::vector<CiEntry> entries;
};

// Reads and checks a manifest: unknown keys, missing files, duplicate or
// unusable names are InputErrors naming the entry and its position.
Manifest readManifest(const std::string &path);
// The same on text already read; `path` names it in messages and resolves the
// pairs' relative paths (the fuzzer's entry point).
Manifest readManifestText(const std::string &text, const std::string &path);

}  // namespace torchtv::cli
