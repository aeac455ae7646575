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
// Paths are relative to the manifest's folder.
#pragma once

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
  SourcePos pos;                   // where the entry is, for messages
};

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
