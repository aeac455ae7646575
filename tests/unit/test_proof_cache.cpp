// The persistent proof cache (src/cache/, Note [Proof cache]): hits, misses,
// the budget rule, damaged and foreign stores, concurrent writer processes.
#include <doctest/doctest.h>

#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "src/cache/proof_cache.h"
#include "src/cache/sha256.h"
#include "ir/text_format.h"
#include "src/verify/cut_points.h"
#include "src/verify/cut_record.h"
#include "src/verify/persistent_proofs.h"
#include "src/verify/result_cache.h"

using namespace torchtv;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/torchtv-cache-test-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string file(const char *name) const { return (path / name).string(); }
};

ProofOutcome unknownOutcome() {
  ProofOutcome o;
  o.reason = "not proven; Z3: resource limit";
  return o;
}

}  // namespace

TEST_CASE("sha256 matches the FIPS 180-4 examples") {
  CHECK(cache::sha256Hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(cache::sha256Hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(cache::sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST_CASE("sha256 of data added piece by piece is the digest of the whole") {
  std::string data;
  for (int i = 0; i < 300; ++i) data += static_cast<char>('a' + i % 26);
  for (size_t piece : {1, 7, 55, 63, 64, 65, 200}) {
    for (size_t size : {size_t(0), size_t(55), size_t(56), size_t(64), size_t(119), size_t(300)}) {
      cache::Sha256 h;
      for (size_t at = 0; at < size; at += piece) h.add(data.data() + at, std::min(piece, size - at));
      CHECK(h.hex() == cache::sha256Hex(data.substr(0, size)));
    }
  }
  cache::Sha256 fields;  // each field after its length (8 bytes): ("ab", "c") and ("a", "bc") differ
  fields.field("ab");
  fields.field("c");
  CHECK(fields.hex() == cache::sha256Hex(std::string("\2\0\0\0\0\0\0\0ab\1\0\0\0\0\0\0\0c", 19)));
}

TEST_CASE("proof cache: a stored payload is found under its key, another key misses") {
  TempDir dir;
  auto c = cache::ProofCache::open(dir.file("sub/proofs.sqlite"));
  REQUIRE(c->usable());
  CHECK_FALSE(c->lookup("region A"));
  c->store("region A", "payload A");
  CHECK(c->lookup("region A") == std::optional<std::string>("payload A"));
  CHECK_FALSE(c->lookup("region B"));
  CHECK(c->stats().hits == 1);
  CHECK(c->stats().misses == 2);
  CHECK(c->entries() == 1);
  // Another process (here: another connection) sees it.
  auto again = cache::ProofCache::open(dir.file("sub/proofs.sqlite"));
  CHECK(again->lookup("region A") == std::optional<std::string>("payload A"));
  again->clear();
  CHECK(again->entries() == 0);
}

TEST_CASE("proof cache: a file that is not a cache is ignored, and left alone") {
  TempDir dir;
  std::string garbage = dir.file("garbage.sqlite");
  std::ofstream(garbage) << "this is not a database, and it is long enough to have a header of some kind\n";
  auto c = cache::ProofCache::open(garbage);
  CHECK_FALSE(c->usable());
  CHECK_FALSE(c->lookup("k"));
  c->store("k", "v");  // no effect, no throw

  std::string foreign = dir.file("foreign.sqlite");
  sqlite3 *db = nullptr;
  REQUIRE(sqlite3_open(foreign.c_str(), &db) == SQLITE_OK);
  sqlite3_exec(db, "CREATE TABLE photos(id INTEGER)", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  CHECK_FALSE(cache::ProofCache::open(foreign)->usable());
  CHECK(fs::file_size(garbage) > 0);
}

TEST_CASE("proof cache: a damaged entry is a miss") {
  TempDir dir;
  std::string path = dir.file("proofs.sqlite");
  auto c = cache::ProofCache::open(path);
  c->store("region A", "{\"proven\":true}");
  sqlite3 *db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  // Flip the payload, keep the envelope: the checksum no longer matches.
  REQUIRE(sqlite3_exec(db, "UPDATE proofs SET value = replace(value, 'true', 'fals')", nullptr, nullptr, nullptr) ==
          SQLITE_OK);
  sqlite3_close(db);
  CHECK_FALSE(c->lookup("region A"));
}

TEST_CASE("proof cache: an unknown under a smaller budget never answers a larger one") {
  TempDir dir;
  auto c = cache::ProofCache::open(dir.file("proofs.sqlite"));
  ProverLimits limits;
  limits.cache = c.get();
  limits.rlimit = 1000;
  std::string key = persistentKey("R0/1\n0=...", Widening::ToInputs, limits);
  storePersistent(key, unknownOutcome(), limits, false);

  ProverLimits larger = limits;
  larger.rlimit = 2000;
  CHECK_FALSE(lookupPersistent(key, larger));
  ProverLimits unlimited = limits;
  unlimited.rlimit = 0;
  CHECK_FALSE(lookupPersistent(key, unlimited));
  ProverLimits moreTime = limits;
  moreTime.querySeconds = limits.querySeconds * 2;
  CHECK_FALSE(lookupPersistent(key, moreTime));
  ProverLimits smaller = limits;
  smaller.rlimit = 500;
  auto hit = lookupPersistent(key, smaller);
  REQUIRE(hit);
  CHECK_FALSE(hit->proven);
  CHECK(hit->reason == unknownOutcome().reason);

  // A proof answers every budget.
  ProofOutcome proof;
  proof.proven = true;
  proof.level = Level::Real;
  proof.reason = "proven";
  proof.assumptions = {sem::Assumption::about(sem::Assumption::Kind::Nonzero, "x"),
                      sem::Assumption::indexInRange("t", sem::IndexRange{5, {-100}}, "aten::nll_loss_forward")};
  std::string key2 = persistentKey("R0/1\n1=...", Widening::ToInputs, limits);
  storePersistent(key2, proof, limits, false);
  auto p = lookupPersistent(key2, larger);
  REQUIRE(p);
  CHECK(p->proven);
  CHECK(p->level == Level::Real);
  CHECK(p->assumptions == proof.assumptions);
}

TEST_CASE("proof cache: no deadline-cut unknown; a Z3 model never, and its outcome only for who reads none") {
  TempDir dir;
  auto c = cache::ProofCache::open(dir.file("proofs.sqlite"));
  ProverLimits limits;
  limits.cache = c.get();
  std::string key = persistentKey("R0/1\n2=...", Widening::ToInputs, limits);
  storePersistent(key, unknownOutcome(), limits, true);
  CHECK_FALSE(lookupPersistent(key, limits));
  CHECK(c->entries() == 0);
  ProofOutcome differ = unknownOutcome();
  differ.realModel.push_back(smt::ModelRead{});
  storePersistent(key, differ, limits, false);
  CHECK_FALSE(lookupPersistent(key, limits));  // the caller reads models: recompute
  ProverLimits noModels = limits;
  noModels.needsModels = false;
  auto hit = lookupPersistent(key, noModels);
  REQUIRE(hit);
  CHECK_FALSE(hit->proven);
  CHECK(hit->realModel.empty());
}

TEST_CASE("proof cache: the key holds the semantics version and every option that changes the answer") {
  ProverLimits limits;
  std::string base = persistentKey("R0/1\n", Widening::ToInputs, limits);
  CHECK(base != persistentKey("R0/1\n", Widening::AroundProducts, limits));
  ProverLimits noSolver = limits;
  noSolver.solver = false;
  CHECK(base != persistentKey("R0/1\n", Widening::ToInputs, noSolver));
  ::setenv("TORCHTV_CACHE_SALT", "changed", 1);
  CHECK(base != persistentKey("R0/1\n", Widening::ToInputs, limits));
  ::unsetenv("TORCHTV_CACHE_SALT");
  CHECK(base == persistentKey("R0/1\n", Widening::ToInputs, limits));
}

TEST_CASE("proof cache: concurrent writer processes lose nothing") {
  TempDir dir;
  std::string path = dir.file("proofs.sqlite");
  const int processes = 6, each = 150;
  std::vector<pid_t> children;
  for (int p = 0; p < processes; ++p) {
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      auto c = cache::ProofCache::open(path);
      int ok = c->usable();
      for (int i = 0; i < each; ++i) {
        c->store("key " + std::to_string(p) + "/" + std::to_string(i), "value " + std::to_string(i));
        // Reads between the writes, as a check does.
        c->lookup("key " + std::to_string((p + 1) % processes) + "/" + std::to_string(i));
      }
      ::_exit(ok && c->usable() ? 0 : 1);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  }
  auto c = cache::ProofCache::open(path);
  CHECK(c->entries() == static_cast<size_t>(processes * each));
  for (int p = 0; p < processes; ++p)
    for (int i = 0; i < each; i += 37)
      CHECK(c->lookup("key " + std::to_string(p) + "/" + std::to_string(i)) ==
            std::optional<std::string>("value " + std::to_string(i)));
}

// Note [Cut search record]: 4096 x 512, past the evaluation budget, so the search is structural.
// Production's %w1 (w + 1) has no counterpart (3 candidates fail), %p = x * w1 is the reference's
// %b = x * w + x; %y2 is where the variants differ after %p, %y0 (an output, computed first) where
// they differ before it but outside its cone.
static std::string recordPair(const std::string &w1, const std::string &y2, const std::string &y0 = "aten::neg(%x)") {
  const std::string t = "f32[4096,512]";
  const std::string sig = "(%x: " + t + ", %w: " + t + ") -> (" + t + ", " + t + ", " + t + ") {";
  return "graph @reference" + sig + "\n  %a: " + t + " = aten::mul.Tensor(%x, %w)\n  %b: " + t +
         " = aten::add.Tensor(%a, %x)\n  %y1: " + t + " = aten::tanh(%b)\n  %y2: " + t +
         " = aten::sigmoid(%b)\n  %y0: " + t + " = aten::neg(%x)\n  return %y1, %y2, %y0\n}\ngraph @production" +
         sig + "\n  %y0: " + t + " = " + y0 + "\n  %w1: " + t + " = aten::add.Scalar(%w) {other=" + w1 +
         "}\n  %p: " + t + " = aten::mul.Tensor(%x, %w1)\n  %y1: " + t + " = aten::tanh(%p)\n  %y2: " + t + " = " +
         y2 + "(%p)\n  return %y1, %y2, %y0\n}\n";
}

// A cache of its own and the search run on pairs against it (Note [Cut search record]).
struct RecordFixture {
  TempDir dir;
  std::unique_ptr<cache::ProofCache> c = cache::ProofCache::open(dir.file("proofs.sqlite"));
  size_t attempts = 0, replayed = 0;  // the last run's
  const std::string base = recordPair("1.0", "aten::sigmoid");

  // The cuts found, as "reference=production@level"; `cache` null: none.
  std::vector<std::string> run(const std::string &text, cache::ProofCache *cache) {
    Module m = parseModule(text, "record.tvir");
    ProverLimits limits;
    limits.cache = cache;
    CutPoints cuts = findCutPoints(*m.find("reference"), *m.find("production"), limits);
    attempts = cuts.attempts;
    replayed = cuts.replayed;
    std::vector<std::string> out;
    for (const CutPoint &cut : cuts.cuts)
      out.push_back(cut.reference->name + "=" + cut.production->name + "@" + std::to_string(int(cut.level)));
    return out;
  }
  std::vector<std::string> run(const std::string &text) { return run(text, c.get()); }

  // The record of the base pair's reference, as the search keeps it, and its stored payload.
  Module baseModule = parseModule(base, "record.tvir");
  CutRecord record() {
    ProverLimits limits;
    limits.cache = c.get();
    limits = cutSearchLimits(limits);
    limits.solver = false;  // the record is kept under the normal form's key (Note [Cut search record])
    return CutRecord(*baseModule.find("reference"), *baseModule.find("production"), limits);
  }
  std::optional<nlohmann::json> stored() {
    std::optional<std::string> payload = c->lookup(record().key(), cache::EntryKind::CutRecord);
    if (!payload) return std::nullopt;
    return nlohmann::json::parse(*payload);
  }
};

TEST_CASE("cut search record: a value whose cone is unchanged is replayed wherever the change is") {
  RecordFixture f;
  REQUIRE(f.c->usable());
  std::vector<std::string> cold = f.run(f.base);
  REQUIRE(cold.size() == 1);
  CHECK(cold[0].rfind("b=p@", 0) == 0);
  CHECK(f.attempts == 4);  // %w1's 3 candidates in vain, %p's first
  CHECK(f.replayed == 0);
  // Unchanged: both decisions (no cut for %w1, %b for %p) replayed, nothing searched.
  CHECK(f.run(f.base) == cold);
  CHECK(f.attempts == 0);
  CHECK(f.replayed == 2);
  // Production changed after %p: the same cut, replayed.
  CHECK(f.run(recordPair("1.0", "aten::cos")) == cold);
  CHECK(f.attempts == 0);
  CHECK(f.replayed == 2);
  // Changed before %p, outside its cone (the first node): replayed too.
  CHECK(f.run(recordPair("1.0", "aten::sigmoid", "aten::mul.Scalar(%x) {other=-1.0}")) == cold);
  CHECK(f.attempts == 0);
  CHECK(f.replayed == 2);
  // Changed in %p's cone (w + 2): nothing is replayed; searched, %p has no counterpart now.
  CHECK(f.run(recordPair("2.0", "aten::sigmoid")).empty());
  CHECK(f.attempts > 0);
  CHECK(f.replayed == 0);
  // Without a cache the search is the same as the first run's.
  CHECK(f.run(f.base, nullptr) == cold);
  CHECK(f.attempts == 4);
  CHECK(f.replayed == 0);
}

TEST_CASE("cut search record: a replayed cut is only a candidate; one that does not hold is searched") {
  RecordFixture f;
  REQUIRE(f.c->usable());
  std::vector<std::string> cold = f.run(f.base);
  REQUIRE(cold.size() == 1);
  // A forged record (the store is writable): every decision now says "%p is %a" (x * w, not x * (w + 1)).
  CutRecord record = f.record();
  std::optional<nlohmann::json> stored = f.stored();
  REQUIRE(stored);
  nlohmann::json j = *stored;
  long indexOfA = -1;
  for (long i = 0; record.referenceValue(i); ++i)
    if (record.referenceValue(i)->name == "a") indexOfA = i;
  REQUIRE(indexOfA >= 0);
  for (auto &[k, d] : j.at("decisions").items()) d[0] = indexOfA;
  f.c->store(record.key(), j.dump(), cache::EntryKind::CutRecord);
  // The forged cut fails its proof and is not merged; %p is searched and cut to %b as before.
  CHECK(f.run(f.base) == cold);
  CHECK(f.attempts > 0);
}

// Note [Cut record pruning]: each other production (w + 2, w + 3, ...) searches two values of its own
// and stores the record; the base's decisions survive kKeptRuns - 1 such runs, not kKeptRuns.
TEST_CASE("cut search record: decisions that no run among the last kKeptRuns used are dropped") {
  RecordFixture f;
  REQUIRE(f.c->usable());
  const std::vector<std::string> cold = f.run(f.base);
  REQUIRE(cold.size() == 1);
  int constant = 2;
  auto anotherRun = [&] {
    f.run(recordPair(std::to_string(constant++) + ".0", "aten::sigmoid"));
    CHECK(f.attempts > 0);  // searched, so the record is stored
  };
  for (long i = 1; i < CutRecord::kKeptRuns; ++i) anotherRun();
  CHECK(f.run(f.base) == cold);
  CHECK(f.replayed == 2);  // kept: used kKeptRuns - 1 runs ago (this replay stores nothing)
  CHECK(f.attempts == 0);
  anotherRun();
  CHECK(f.run(f.base) == cold);
  CHECK(f.replayed == 0);  // dropped: searched again, to the same cut
  CHECK(f.attempts == 4);
  // The record holds the decisions of the last kKeptRuns runs that stored it, two each.
  std::optional<nlohmann::json> stored = f.stored();
  REQUIRE(stored);
  CHECK(stored->at("decisions").size() == static_cast<size_t>(2 * CutRecord::kKeptRuns));
  CHECK(f.c->entriesOf(cache::EntryKind::CutRecord).first == 1);
}

// Note [Result cache]: the key is hashed field by field from the graphs, not from their printed
// text; whatever a report names (a value's name, a source line or file, an attribute, an output's
// name) is in it, so a pair differing in any of them is a miss.
static std::string resultPair(const std::string &name = "b", const std::string &loc = "\"m.py\":3",
                              const std::string &alpha = "2", const std::string &output = "b") {
  return "graph @reference(%x: f32[4]) -> (f32[4]) {\n  %a: f32[4] = aten::neg(%x)\n  return %a\n}\n"
         "graph @production(%x: f32[4]) -> (f32[4]) {\n  %" + name + ": f32[4] = aten::mul.Scalar(%x) {other=" +
         alpha + "} loc(" + loc + ")\n  return %" + output + "\n}\n";
}

TEST_CASE("result cache: a pair that differs in a name, a source line or file, or an attribute misses") {
  TempDir dir;
  auto c = cache::ProofCache::open(dir.file("proofs.sqlite"));
  REQUIRE(c->usable());
  CheckOptions options;
  options.proofCache = c.get();
  auto cacheFor = [&](const std::string &text, Module &m) {
    m = parseModule(text, "result.tvir");
    const Graph &ref = *m.find("reference"), &prod = *m.find("production");
    return ResultCache(ref, prod, ref, prod, options);
  };
  Module stored;
  ResultCache first = cacheFor(resultPair(), stored);
  CHECK(!first.lookup());
  Decision d;
  OutputResult out;
  out.name = "out";
  out.verdict = Verdict::Equivalent;
  out.level = Level::Real;
  d.result.outputs.push_back(out);
  REQUIRE(first.store(d));
  Module m;
  CHECK(cacheFor(resultPair(), m).lookup());
  CHECK(!cacheFor(resultPair("c", "\"m.py\":3", "2", "c"), m).lookup());
  CHECK(!cacheFor(resultPair("b", "\"m.py\":4"), m).lookup());
  CHECK(!cacheFor(resultPair("b", "\"n.py\":3"), m).lookup());
  CHECK(!cacheFor(resultPair("b", "\"m.py\":3", "3"), m).lookup());
}
