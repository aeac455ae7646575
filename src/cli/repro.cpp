#include "src/cli/repro.h"

#include <filesystem>
#include <system_error>

#include <nlohmann/json.hpp>

#include "ir/diagnostic.h"
#include "src/util/atomic_file.h"
#include "src/util/install_layout.h"
#include "src/verify/code_runs.h"

namespace torchtv::cli {

namespace {

namespace fs = std::filesystem;

// A Python string literal: a JSON string is one (its escapes are Python's too).
std::string pyString(const std::string &s) { return nlohmann::json(s).dump(); }

const char *kScript = R"PY(#!/usr/bin/env python3
"""The counterexample `torchtv verify --repro` found, run through the pair's own functions.

    python3 repro.py [PAIR.py]

Builds the inputs of counterexample.json as tensors (and saves them to inputs.pt next to this
file: torch.load gives a dict name -> tensor), runs reference() and production() on them as
torchtv's capture runs them, and prints, for each output that torchtv found not equivalent,
whether the code shows the difference there. Exit 1 when it does, 0 when it does not. Needs
torch; the pair file defaults to the one checked (give another copy to try a fix)."""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PAIR = sys.argv[1] if len(sys.argv) > 1 else @PAIR@
sys.path.insert(0, @PACKAGE@)  # torchtv's Python package, where torchtv found it

import torch  # noqa: E402
from torchtv_capture.code_runs import _tensor, run_code  # noqa: E402
from torchtv_capture.pairfile import load_pair  # noqa: E402

with open(os.path.join(HERE, "counterexample.json")) as f:
    request = json.load(f)
pair = load_pair(PAIR)
inputs = {spec["name"]: _tensor(spec, like) for spec, like in zip(request["inputs"], pair.example_inputs)}
torch.save(inputs, os.path.join(HERE, "inputs.pt"))
for name, t in inputs.items():
    print("input %s: %s %s" % (name, t.dtype, list(t.shape)))
reply = run_code(pair, request)
if not reply.get("ran"):
    print("the pair's functions did not run: %s" % reply.get("why"))
    sys.exit(2)
shown = False
for out in reply["outputs"]:
    shown |= bool(out.get("shows"))
    print("output %s: %s - %s" % (out["name"], "differs" if out.get("shows") else "agrees", out.get("how", "")))
sys.exit(1 if shown else 0)
)PY";

}  // namespace

std::string writeRepro(const CheckResult &result, const std::string &pairPath, const std::string &dir) {
  if (!result.counterexample || result.counterexample->inputs.empty())
    return "";
  std::vector<size_t> outputs;
  for (size_t i = 0; i < result.outputs.size(); ++i)
    if (result.outputs[i].verdict != Verdict::Equivalent) outputs.push_back(i);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw InputError(SourcePos{dir}, "cannot create the --repro folder: " + ec.message());
  std::string script = kScript;
  auto put = [&script](const std::string &key, const std::string &value) {
    script.replace(script.find(key), key.size(), value);
  };
  put("@PAIR@", pyString(fs::absolute(pairPath).lexically_normal().string()));
  put("@PACKAGE@", pyString(installLayout().capturePackageDir));
  writeFileAtomic((fs::path(dir) / "counterexample.json").string(), codeRunRequest(result, outputs) + "\n");
  std::string repro = (fs::path(dir) / "repro.py").string();
  writeFileAtomic(repro, script);
  return repro;
}

}  // namespace torchtv::cli
