// torchtv show FILE: print a graph file as canonical .tvir; with --normalized,
// print what the verifier compares (normalized, fused ops expanded).
#include <iostream>

#include "ir/diagnostic.h"
#include "ir/text_format.h"
#include "src/cli/commands.h"
#include "src/import/load.h"
#include "ir/op_registry.h"
#include "src/normalize/normalize.h"
#include "src/torch/replay.h"
#include "src/sem/semantics.h"

namespace torchtv::cli {

namespace {
struct ShowArgs {
  std::string path;
  bool normalized = false;
  std::string fusionsDir;
  std::string inputs;  // --inputs, for .pt / .pt2 files
  bool opCoverage = false;
};

// Whether normalization acts on an op through its registry properties (Note
// [Op properties]): element moves (drop_no_ops, fold_constants), dropout's
// identity calls, a scalar twin with shape rules on both sides (unify_overloads).
bool normalizedByProperties(const OpInfo &op) {
  const OpProps &p = op.props;
  if (p.elements != ElementMap::None || isIdentityCall(op.schema->name, {{"p", 0.0}})) return true;
  const OpInfo *twin = p.scalarTwin.empty() ? nullptr : lookupOp(p.scalarTwin);
  if (twin && op.hasShapeRule() && twin->hasShapeRule()) return true;
  for (const OpInfo &other : allOps())  // the Scalar side of such a pair
    if (other.props.scalarTwin == op.schema->name && other.hasShapeRule() && op.hasShapeRule()) return true;
  return false;
}

// One line per registry op: name, whether src/sem gives it semantics (the
// prover and the evaluator read them; `uninit` for memory nobody wrote, whose
// semantics is exactly "unspecified values": Note [Uninitialized memory];
// `random` for a fresh sample per call: Note [Random calls]),
// whether LibTorch can replay it, whether normalization acts on it through its
// registry properties. Read by scripts/gen_ops_table.py to fill docs/ops.md.
int printOpCoverage() {
  for (const OpInfo &op : allOps())
    std::cout << op.schema->name << "\t"
              << (sem::hasSemantics(op.schema->name) ? "smt"
                  : op.props.uninitialized           ? "uninit"
                  : op.props.random                  ? "random"
                                                     : "-")
              << "\t"
              << (canReplay(*op.schema) ? "replay" : "-") << "\t" << (normalizedByProperties(op) ? "normalize" : "-")
              << "\n";
  return 0;
}

int runShow(const ShowArgs &args) {
  if (args.opCoverage) return printOpCoverage();
  if (args.path.empty()) {
    std::cerr << "torchtv: error: show needs a FILE\n";
    return exitCode(Verdict::Error);
  }
  if (args.path.size() > 3 && args.path.compare(args.path.size() - 3, 3, ".py") == 0) {
    // A pair file is Python code, which `show` never runs (only capture and verify do).
    std::cerr << "torchtv: error: " << args.path << " is a pair file (Python code, which show does not run): "
              << "capture it with 'torchtv capture " << args.path << " -o DIR', then 'torchtv show DIR'; "
              << "or decide it with 'torchtv verify " << args.path << "'\n";
    return exitCode(Verdict::Error);
  }
  try {
    auto m = InputReader(args.inputs, args.fusionsDir).load(args.path);
    if (!args.normalized) {
      std::cout << printModule(*m);
      return 0;
    }
    FusionLibrary fusions = fusionsFor({m.get()}, args.fusionsDir);
    NormalizeOptions opts;
    opts.rules = &bundledRules();
    std::string out;
    for (const auto &g : m->graphs) {
      NormalizeResult r = normalizeGraph(*g, fusions, opts);
      std::string note = "# normalized: " + std::to_string(r.iterations) + " round(s)";
      if (!r.fixedPoint) note += ", stopped before a fixed point";
      note += r.realValues.empty() ? ", every rewrite bitwise\n"
                                   : ", " + std::to_string(r.realValues.size()) +
                                         " value(s) at level real (expanded ATen composites)\n";
      out += (out.empty() ? "" : "\n") + note + printGraph(*g);
    }
    std::cout << out;
    return 0;
  } catch (const InputError &e) {
    std::cerr << "torchtv: error: " << e.what() << "\n";
    return exitCode(Verdict::Error);
  }
}
}  // namespace

Command addShowCommand(CLI::App &app) {
  auto args = std::make_shared<ShowArgs>();
  auto *cmd = app.add_subcommand("show", "Print a graph file as .tvir text");
  cmd->add_option("file", args->path, "Graph file");
  cmd->add_flag("--op-coverage", args->opCoverage,
                "Print every registry op with its prover semantics and LibTorch replay support (for docs/ops.md)");
  addInputsOption(*cmd, args->inputs);
  cmd->add_flag("--normalized", args->normalized,
                "Print what the verifier compares: every graph normalized, fused ops expanded");
  cmd->add_option("--fusions", args->fusionsDir, "Folder of .tvir definitions of fused/custom ops to expand");
  return {cmd, [args] { return runShow(*args); }};
}

}  // namespace torchtv::cli
