#include "src/normalize/normalize.h"

#include <map>
#include <string>

#include "ir/diagnostic.h"
#include "ir/rewrite.h"
#include "src/normalize/passes.h"

namespace torchtv {

namespace {
// Note [Expansion depth]: what still expands after that many rounds, with its definition: a
// definition whose body calls its own op, directly or through another definition. Definitions of
// one op are tried in order, so one for the value the body calls with, a literal guard
// ({alpha=1.0}), placed before the general one ({alpha=$alpha}), ends the expansion: the
// definition language's "alpha != 1".
std::string endlessExpansion(const std::map<std::string, std::string> &stillExpanding, int rounds) {
  std::string ops;
  for (const auto &[op, where] : stillExpanding) ops += (ops.empty() ? "" : ", ") + op + " (defined at " + where + ")";
  return "fusion definitions expand without end: after " + std::to_string(rounds) + " rounds, still expanding: " +
         ops + ". A definition whose body calls its own op (directly or through another definition) matches its "
         "own call again when its header binds the attribute ($name or _); put a definition with a literal guard "
         "for the value the body calls with (such as {alpha=1.0}) before it, or call another op";
}
}  // namespace

NormalizeResult normalizeGraph(Graph &g, const FusionLibrary &fusions, const NormalizeOptions &opts) {
  NormalizeResult result;
  Rewriter rw(g, result.realValues, &fusions.resolver());
  eliminateDeadCode(g);
  rw.startPass();
  if (lowerComplex(rw)) {
    sortTopologically(g);
    eliminateDeadCode(g);
    result.passChanges["lower-complex"]++;
  }
  // Note [Expansion depth]: each round inlines one level of definitions, so a
  // definition that calls its own op (directly or not) keeps expanding.
  int expansionRounds = 0;
  const int kMaxExpansionDepth = 16;
  result.fixedPoint = false;
  for (result.iterations = 0; result.iterations < opts.maxIterations;) {
    ++result.iterations;
    bool changed = false;
    auto run = [&](const char *name, auto pass) {
      rw.startPass();
      if (!pass()) return;
      sortTopologically(g);
      eliminateDeadCode(g);
      result.passChanges[name]++;
      changed = true;
    };
    bool expanded = false;
    if (opts.fusions != FusionExpansion::Off) {
      std::map<std::string, std::string> expandedOps;  // this round's, with their definitions
      run("expand-fusions", [&] {
        return expanded = expandFusions(rw, fusions, result.misfitDefinitions,
                                        opts.fusions == FusionExpansion::ExactOnly, expandedOps);
      });
      expansionRounds = expanded ? expansionRounds + 1 : 0;
      if (expansionRounds > kMaxExpansionDepth) throw InputError(endlessExpansion(expandedOps, kMaxExpansionDepth));
    }
    run("drop-no-ops", [&] { return dropNoOps(rw); });
    run("fold-constants", [&] { return foldConstants(rw); });
    run("unify-scalar-overloads", [&] { return unifyScalarOverloads(rw); });
    run("canonical-layout", [&] { return canonicalizeLayout(rw); });
    if (opts.rules) run("rules", [&] { return applyRules(rw, *opts.rules); });
    run("explicit-promotion", [&] { return makePromotionExplicit(rw); });
    run("cse", [&] { return eliminateCommonSubexpressions(rw); });
    if (!changed) {
      result.fixedPoint = true;
      break;
    }
  }
  return result;
}

const FusionLibrary &bundledFusions() {
  static const FusionLibrary lib = [] {
    FusionLibrary l;
    l.loadDirectory(FusionLibrary::bundledDirectory(), FusionOrigin::Bundled);
    return l;
  }();
  return lib;
}

std::string kernelDefinitionsDirectory() { return FusionLibrary::bundledDirectory() + "/inductor"; }

// Note [Kernel definitions by default] (normalize.h).
const FusionLibrary &defaultFusions() {
  static const FusionLibrary lib = [] {
    FusionLibrary l = bundledFusions();
    l.loadDirectory(kernelDefinitionsDirectory(), FusionOrigin::Bundled);
    return l;
  }();
  return lib;
}

const RuleSet &bundledRules() {
  static const RuleSet rules = [] {
    RuleSet r;
    r.loadDirectory(RuleSet::bundledDirectory());
    return r;
  }();
  return rules;
}

}  // namespace torchtv
