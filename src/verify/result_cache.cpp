#include "src/verify/result_cache.h"

#include <nlohmann/json.hpp>

#include "ir/text_format.h"
#include "src/cache/proof_cache.h"
#include "src/cache/sha256.h"
#include "src/verify/persistent_proofs.h"

namespace torchtv {
namespace {

bool runningRefutedAnOutput(const CheckOptions &options) {
  if (!options.capture || !options.capture->eager || !options.capture->eager->ran) return false;
  for (const EagerOutputCheck &o : options.capture->eager->outputs)
    if (o.beyondRounding) return true;
  return false;
}

std::string keyOf(const Graph &origRef, const Graph &origProd, const Graph &ref, const Graph &prod,
                  const CheckOptions &o) {
  return "torchtv-result 3\n" + semanticsVersion() +
         "\nnormalize=" + std::to_string(o.normalization == Normalization::On) +
         " monolithic=" + std::to_string(o.strategy == Strategy::Monolithic) +
         " cuts=" + std::to_string(o.cutPoints == CutPointSearch::On) + " rlimit=" + std::to_string(o.rlimit) +
         " memory=" + std::to_string(o.solverMemoryMB) +
         " rounded-constants=" + std::to_string(o.assumeRoundedConstants) + "\n" + printGraph(origRef) + "\n" +
         printGraph(origProd) + (o.fusions ? "\nfusions " + printGraph(ref) + "\n" + printGraph(prod) : "");
}

}  // namespace

ResultCache::ResultCache(const Graph &origRef, const Graph &origProd, const Graph &ref, const Graph &prod,
                         const CheckOptions &options)
    : options_(options) {
  if (options.proofCache && options.proofCache->usable() && !runningRefutedAnOutput(options))
    // Hashed once here: the four graphs printed are megabytes at 64 layers, and the
    // store hashes its key on each lookup and store (Note [Result cache]).
    key_ = cache::sha256Hex(keyOf(origRef, origProd, ref, prod, options));
}

std::optional<Decision> ResultCache::lookup() {
  if (!on()) return std::nullopt;
  std::optional<std::string> payload = options_.proofCache->lookup(key_);
  if (!payload) return std::nullopt;
  try {
    nlohmann::json j = nlohmann::json::parse(*payload);
    Decision d;
    for (const auto &o : j.at("outputs")) {
      OutputResult out;
      out.name = o.at("name").get<std::string>();
      out.verdict = Verdict::Equivalent;  // only such decisions are stored
      out.level = o.at("level").get<std::string>() == "bitwise" ? Level::Bitwise : Level::Real;
      out.reason = o.at("reason").get<std::string>() + "; " + reasons::kFromProofCache;
      d.result.outputs.push_back(std::move(out));
    }
    d.result.match.reference = j.at("match_reference").get<std::map<std::string, int>>();
    d.result.match.production = j.at("match_production").get<std::map<std::string, int>>();
    d.result.stats.cutPoints = j.at("cut_points").get<size_t>();
    d.realAssumptions = j.at("real_assumptions").get<AssumptionCounts>();
    return d;
  } catch (const nlohmann::json::exception &) {
    return std::nullopt;  // intact but unreadable: another version's layout
  }
}

bool ResultCache::store(const Decision &d) {
  if (!on()) return false;
  nlohmann::json outputs = nlohmann::json::array();
  for (const OutputResult &o : d.result.outputs) {
    if (o.verdict != Verdict::Equivalent) return false;
    outputs.push_back({{"name", o.name}, {"level", std::string(levelName(o.level))}, {"reason", o.reason}});
  }
  nlohmann::json j = {{"outputs", outputs},
                      {"match_reference", d.result.match.reference},
                      {"match_production", d.result.match.production},
                      {"cut_points", d.result.stats.cutPoints},
                      {"real_assumptions", d.realAssumptions}};
  options_.proofCache->store(key_, j.dump());
  return true;
}

}  // namespace torchtv
