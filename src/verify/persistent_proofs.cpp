#include "src/verify/persistent_proofs.h"

#include <cstdlib>

#include <nlohmann/json.hpp>

#include "src/cache/proof_cache.h"
#include "src/verify/assumption_json.h"
#include "src/verify/roundings.h"
#include "torchtv_semantics.h"

namespace torchtv {
namespace {

// Bumped by hand when something outside the hashed sources (a dependency's
// behaviour, e.g. Z3's) changes what a proof means (Note [Semantics version]).
constexpr int kSemanticsEpoch = 1;

// 0 means no limit (Z3's rlimit, the memory cap).
bool atLeast(unsigned stored, unsigned wanted) { return stored == 0 || (wanted != 0 && stored >= wanted); }

}  // namespace

std::string semanticsVersion() {
  std::string v = std::string(TORCHTV_SEMANTICS_HASH).substr(0, 16) + "." + std::to_string(kSemanticsEpoch);
  if (const char *salt = std::getenv("TORCHTV_CACHE_SALT"); salt && *salt) v += "." + std::string(salt);
  return v;
}

std::string persistentKey(const std::string &regionKey, Widening widening, const ProverLimits &limits) {
  // 3: level rounded (Note [Equivalence up to rounding]) proves what 2 left unknown.
  // 4: input domains from the reference alone (Note [Reference kernel domains]).
  return "torchtv-proof 4\n" + std::string(TORCHTV_SEMANTICS_HASH) + "\n" + semanticsVersion() +
         "\nwidening=" + std::to_string(static_cast<int>(widening)) + " solver=" + (limits.solver ? "1" : "0") +
         " maxTerms=" + std::to_string(limits.maxRegionTerms) + "\n" + regionKey;
}

std::string widenedPersistentKey(const std::string &key, const ProofOutcome &at, const std::string &widenedRegionKey) {
  return key + "\nwidened " + std::to_string(static_cast<int>(at.provenAt)) + "/" +
         std::to_string(at.provenExpansions) + "\n" + widenedRegionKey;
}

std::vector<std::string> keysToKeep(const std::string &key, const ProofOutcome &o) {
  if (o.proven && o.provenAt != Frontier::Matched) return {widenedPersistentKey(key, o, o.widenedKey), key};
  return {key};
}

std::optional<ProofOutcome> lookupPersistent(const std::string &key, const ProverLimits &limits) {
  if (!limits.cache) return std::nullopt;
  std::optional<std::string> payload = limits.cache->lookup(key);
  if (!payload) return std::nullopt;
  try {
    nlohmann::json j = nlohmann::json::parse(*payload);
    ProofOutcome o;
    o.proven = j.at("proven").get<bool>();
    o.level = static_cast<Level>(j.at("level").get<int>());
    o.reason = j.at("reason").get<std::string>();
    o.assumptions = j.at("assumptions").get<sem::Assumptions>();
    o.roundings = roundingsFromJson(j.at("roundings"));
    o.provenAt = static_cast<Frontier>(j.at("proven_at").get<int>());
    o.provenExpansions = j.at("expansions").get<size_t>();
    o.widenedKey = j.at("widened_key").get<std::string>();
    // An entry stored without its Z3 model answers only callers that read none.
    if (!o.proven && j.value("model_dropped", false) && limits.needsModels) return std::nullopt;
    if (!o.proven && !(atLeast(j.at("rlimit").get<unsigned>(), limits.rlimit) &&
                       atLeast(j.at("memory_mb").get<unsigned>(), limits.memoryMB) &&
                       j.at("query_seconds").get<double>() >= limits.querySeconds))
      return std::nullopt;
    return o;
  } catch (const nlohmann::json::exception &) {
    return std::nullopt;  // intact but unreadable: another version's layout
  }
}

void storePersistent(const std::string &key, const ProofOutcome &o, const ProverLimits &limits, bool budgetCut) {
  if (!limits.cache) return;
  if (!o.proven && budgetCut) return;
  nlohmann::json j = {{"proven", o.proven},
                      {"level", static_cast<int>(o.level)},
                      {"reason", o.reason},
                      {"assumptions", o.assumptions},
                      {"roundings", roundingsJson(o.roundings)},
                      {"proven_at", static_cast<int>(o.provenAt)},
                      {"expansions", o.provenExpansions},
                      {"widened_key", o.widenedKey},
                      {"rlimit", limits.rlimit},
                      {"memory_mb", limits.memoryMB},
                      {"query_seconds", limits.querySeconds},
                      {"model_dropped", !o.realModel.empty()}};
  limits.cache->store(key, j.dump());
}

}  // namespace torchtv
