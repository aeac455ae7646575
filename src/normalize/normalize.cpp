#include "src/normalize/normalize.h"

#include "ir/diagnostic.h"
#include "ir/rewrite.h"
#include "src/normalize/passes.h"

namespace torchtv {

NormalizeResult normalizeGraph(Graph &g, const FusionLibrary &fusions, const NormalizeOptions &opts) {
  NormalizeResult result;
  Rewriter rw(g, result.realValues, &fusions.resolver());
  eliminateDeadCode(g);
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
      run("expand-fusions", [&] {
        return expanded = expandFusions(rw, fusions, result.misfitDefinitions,
                                        opts.fusions == FusionExpansion::ExactOnly);
      });
      expansionRounds = expanded ? expansionRounds + 1 : 0;
      if (expansionRounds > kMaxExpansionDepth)
        throw InputError("fusion definitions expand without end (does a definition call its own op?)");
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
