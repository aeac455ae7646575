// torchtv ci MANIFEST: decide every pair of a manifest, in parallel, and write
// the reports a CI job gates on. Exit code: the worst verdict.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <set>
#include <thread>
#include <unistd.h>

#include <spdlog/fmt/fmt.h>

#include <nlohmann/json.hpp>

#include "ir/text_format.h"
#include "src/cli/ci_manifest.h"
#include "src/cli/commands.h"
#include "src/cli/usage.h"
#include "src/report/describe.h"
#include "src/util/atomic_file.h"
#include "src/util/subprocess.h"
#include "src/verify/verdict_table.h"

namespace torchtv::cli {

namespace {

namespace fs = std::filesystem;

// Seconds a child gets past its --timeout: its start, a margin over the watchdog's grace
// (Watchdog::kGraceSeconds, now 1 s) and the HTML report (whose drawings have their own budget,
// Note [Drawing budget]).
const double kAfterVerdictSeconds = 15 + 5 + HtmlOptions{}.dotTimeoutSeconds;

struct CiArgs {
  std::string manifest;
  int jobs = 1;
  std::string cache;  // --cache, --no-cache: passed on to each pair's check
  bool noCache = false;
  std::string shard;  // --shard K/N (Note [CI shards])
  CLI::App *merge = nullptr;
  std::vector<std::string> mergeDirs;  // ci merge DIR...
  std::string outDir = "torchtv-reports";
  ColorChoice progress = ColorChoice::Auto;  // Auto: a bar on a terminal, lines otherwise
  bool noReport = false;                     // --no-report: no HTML for any pair
  bool sandbox = false;                      // --sandbox: every pair file as if `untrusted = true`
  std::string sourceRoot;                    // --source-root, resolved (Note [Source root])
  std::string baselineDir;                   // --baseline: an earlier run's report folder
  CLI::App *root = nullptr;
};

// Note [Baseline]
// `ci --baseline DIR` gates against an earlier run's report folder (its --out,
// or a merged one): each output that was not equivalent there is accepted at
// that verdict or a better one, as a manifest's `expect` would accept it (Note
// [Expected verdicts] in ci_manifest.h; the manifest's own expectation comes
// first). A pair absent from the baseline accepts nothing (a new pair must
// pass), nor does an error there (nothing was compared); a baseline file that
// cannot be read stops the run before anything is decided (exit 3): a gate
// that silently lost its baseline would fail everything, or worse, nothing.
struct Baseline {
  std::string dir;
  // pair -> output ("" for a pair undecided as a whole) -> its verdict there, not equivalent.
  std::map<std::string, std::map<std::string, Verdict>> failing;

  std::optional<Verdict> verdictOf(const std::string &pair, const std::string &output) const {
    auto p = failing.find(pair);
    if (p == failing.end()) return std::nullopt;
    auto o = p->second.find(output);
    if (o == p->second.end()) return std::nullopt;
    return o->second;
  }
};

struct Outcome {
  NamedResult result;
  std::string json;  // as the child printed it (or as we rendered it)
  double wallSeconds = 0;
  // Note [Expected verdicts]: the expectations now met by `equivalent`, and those naming no
  // output of the pair (what is accepted is in result.accepted).
  std::vector<std::string> stale, unmatched;
};

std::string selfPath() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? "torchtv" : p.string();
}

bool hasSubcommand(CLI::App *root, const std::string &name) {
  for (CLI::App *sub : root->get_subcommands([](CLI::App *) { return true; }))
    if (sub->get_name() == name) return true;
  return false;
}

// Note [Expected verdicts] in ci_manifest.h: marks the outputs the manifest accepts as they are,
// and lists the expectations met by `equivalent` or naming no output.
void acceptExpected(const CiEntry &e, const Baseline &baseline, Outcome &out) {
  const CheckResult &r = out.result.result;
  if (r.verdict == Verdict::Error) return;
  auto accept = [&](const std::string &output, Verdict v) {
    if (v == Verdict::Equivalent) return;
    std::string why;
    std::optional<Verdict> allowed = expectedVerdict(e, output);
    if (allowed) {
      why = "expected " + std::string(verdictName(*allowed)) + (e.why.empty() ? "" : ": " + e.why);
    } else if ((allowed = baseline.verdictOf(e.name, output))) {  // Note [Baseline]
      why = std::string(verdictName(*allowed)) + " in the baseline " + baseline.dir;
    }
    if (allowed && severity(v) <= severity(*allowed)) out.result.accepted[output] = why;
  };
  if (r.outputs.empty()) accept("", r.verdict);  // undecided as a whole (a time limit)
  for (const OutputResult &o : r.outputs) {
    accept(o.name, o.verdict);
    if (o.verdict == Verdict::Equivalent && e.expect.count(o.name)) out.stale.push_back(o.name);
  }
  for (const auto &[output, verdict] : e.expect)
    if (!output.empty() && std::none_of(r.outputs.begin(), r.outputs.end(),
                                        [&](const OutputResult &o) { return o.name == output; }))
      out.unmatched.push_back(output);
  if (e.expect.count("") && r.verdict == Verdict::Equivalent) out.stale.push_back("every output");
}

// The verdict the gate counts: the pair's, or, where the manifest accepts outputs, the worst
// among the others (never better than what the pair says beyond its outputs).
Verdict gateVerdict(const NamedResult &nr) {
  const CheckResult &r = nr.result;
  if (nr.accepted.empty() || r.verdict == Verdict::Error) return r.verdict;
  if (r.outputs.empty()) return Verdict::Equivalent;  // accepted as a whole
  Verdict worst = Verdict::Equivalent, worstOfAll = Verdict::Equivalent;
  for (const OutputResult &o : r.outputs) {
    if (severity(o.verdict) > severity(worstOfAll)) worstOfAll = o.verdict;
    if (!nr.acceptedWhy(o.name) && severity(o.verdict) > severity(worst)) worst = o.verdict;
  }
  return severity(r.verdict) > severity(worstOfAll) ? r.verdict : worst;
}

// Note [Pairs in child processes]
// Each pair is checked by a child `torchtv check`/`verify` that prints JSON:
// a crash (a solver's SIGFPE, an out-of-memory kill) or a hang in one pair
// becomes that pair's verdict and never stops the others.
Outcome runEntry(const CiEntry &e, const CiArgs &args, const Baseline &baseline) {
  Outcome out;
  out.result.name = e.name;
  ReportContext &ctx = out.result.ctx;
  ctx.version = versionString();
  ctx.referencePath = e.files.at(0);
  ctx.productionPath = e.files.back();
  ctx.sourceRoot = args.sourceRoot;
  std::string html = (fs::path(args.outDir) / (e.name + ".html")).string();
  ReportWhen report = args.noReport ? ReportWhen::Never : e.report;
  std::error_code ec;
  if (fs::is_regular_file(html, ec)) fs::remove(html, ec);  // an earlier run's page must not pass for this run's
  auto start = std::chrono::steady_clock::now();
  CheckResult r;
  if (e.kind == PairKind::PairFile && !hasSubcommand(args.root, "verify")) {
    r = errorResult(reasons::kCiVerifyUnavailable, e.files[0]);
  } else {
    std::vector<std::string> argv = {selfPath(), "-q", e.kind == PairKind::PairFile ? "verify" : "check"};
    argv.insert(argv.end(), e.files.begin(), e.files.end());
    argv.insert(argv.end(), {"--format", "json"});
    if (report != ReportWhen::Never)
      argv.insert(argv.end(), {"--report", html, "--report-when", report == ReportWhen::Always ? "always" : "failures"});
    if (!e.require.empty()) argv.insert(argv.end(), {"--require", e.require});
    if (e.kind == PairKind::PairFile && (e.untrusted || args.sandbox)) argv.push_back("--sandbox");
    // Note [Pair time budget]: the pair's timeout bounds the child's capture and
    // decision (its --timeout, Note [Time budget]); the process gets more for its
    // start, the watchdog's grace and the report, drawn after the verdict.
    bool ownTimeout = std::any_of(e.args.begin(), e.args.end(),
                                  [](const std::string &a) { return a.rfind("--timeout", 0) == 0; });
    if (!ownTimeout) argv.insert(argv.end(), {"--timeout", fmt::format("{:g}", e.timeoutSeconds)});
    if (args.noCache) argv.push_back("--no-cache");
    if (!args.cache.empty()) argv.insert(argv.end(), {"--cache", args.cache});
    argv.insert(argv.end(), e.args.begin(), e.args.end());
    ProcessOptions options;
    options.timeoutSeconds = e.timeoutSeconds + kAfterVerdictSeconds;
    ProcessResult p = runProcess(argv, options);
    std::string how = describeExit(p, options.timeoutSeconds);
    if (p.timedOut) {
      applyEvidence(r, Evidence::TimedOut);
      r.reason = std::string(reasons::kCiTimedOut) + " (" + how + ")";
    } else if (p.signal || !p.started) {
      r = errorResult(std::string(reasons::kCiCrashed) + " (" + how + ")");
    } else {
      try {
        ReportContext childCtx;
        r = parseJsonResult(p.out, childCtx);
        out.json = p.out;
        // The exit code is what gates; a JSON that disagrees with it (a report
        // that could not be written, a bug) must not pass for a verdict.
        if (p.exitCode != exitCode(r.verdict)) {
          std::string last = p.err.substr(0, p.err.find('\n'));
          r = errorResult(std::string(reasons::kCiNoResult) + " (" + how + ", but its JSON says " +
                          std::string(verdictName(r.verdict)) + ")" + (last.empty() ? "" : ": " + last));
          out.json.clear();
        }
      } catch (const InputError &) {
        std::string last = p.err.substr(0, p.err.find('\n'));
        r = errorResult(std::string(reasons::kCiNoResult) + " (" + how + ")" + (last.empty() ? "" : ": " + last));
      }
    }
  }
  out.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (out.json.empty()) {
    // No usable child output: our own verdict, and a page that says it.
    r.stats.seconds = out.wallSeconds;
    out.json = renderJson(r, ctx);
    HtmlOptions options;
    if (report != ReportWhen::Never) writeFileAtomic(html, renderHtml(r, ctx, options));
  }
  writeFileAtomic((fs::path(args.outDir) / (e.name + ".json")).string(), out.json);
  out.result.result = std::move(r);
  acceptExpected(e, baseline, out);
  return out;
}

std::string verdictText(const Outcome &o) {
  const CheckResult &r = o.result.result;
  std::string s(verdictName(r.verdict));
  if (r.level != Level::None) s += " (" + std::string(levelName(r.level)) + ")";
  if (!o.result.accepted.empty()) s += gateVerdict(o.result) == Verdict::Equivalent ? ", expected" : ", partly expected";
  return s;
}

class Progress {
public:
  Progress(size_t total, bool bar) : total_(total), bar_(bar) {}

  void finished(const Outcome &o) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++done_;
    char line[512];
    std::snprintf(line, sizeof line, "[%zu/%zu] %s: %s (%.2f s)", done_, total_, o.result.name.c_str(),
                  verdictText(o).c_str(), o.wallSeconds);
    if (!bar_) {
      std::printf("%s\n", line);
    } else {
      const int width = 30;
      int filled = static_cast<int>(width * done_ / std::max<size_t>(total_, 1));
      std::printf("\r\033[K%s\n[%s%s] %zu/%zu", line, std::string(filled, '#').c_str(),
                  std::string(width - filled, '.').c_str(), done_, total_);
      if (done_ == total_) std::printf("\r\033[K");
    }
    std::fflush(stdout);
  }

private:
  std::mutex mutex_;
  size_t total_, done_ = 0;
  bool bar_;
};

std::string summaryTable(const std::vector<Outcome> &outcomes, const std::string &outDir, Verdict worst) {
  size_t nameWidth = 4;
  for (const Outcome &o : outcomes) nameWidth = std::max(nameWidth, o.result.name.size());
  std::string out;
  char line[1024];
  std::snprintf(line, sizeof line, "%-*s  %-34s %8s  %s\n", static_cast<int>(nameWidth), "pair", "verdict", "time",
                "reason");
  out += line;
  for (const Outcome &o : outcomes) {
    const CheckResult &r = o.result.result;
    std::string reason = (r.errorLocation.empty() ? "" : r.errorLocation + ": ") + r.reason;
    // The first cause by name and line (Note [One alert per cause]), not only "some outputs differ".
    if (std::vector<CauseGroup> causes = causeGroups(r); !causes.empty()) {
      const CauseGroup &g = causes.front();
      reason = groupedOutputsText(g, 3) +
               (g.production ? " at production's " + siteText(*g.production) : " - " + shortened(g.outputs.front()->reason, 100)) +
               (causes.size() > 1 ? "; " + std::to_string(causes.size() - 1) + " more cause" +
                                        (causes.size() > 2 ? "s" : "")
                                  : "");
    }
    std::snprintf(line, sizeof line, "%-*s  %-34s %7.2fs  %s\n", static_cast<int>(nameWidth), o.result.name.c_str(),
                  verdictText(o).c_str(), o.wallSeconds, reason.c_str());
    out += line;
  }
  // Note [Expected verdicts]: what the manifest accepted, and where it can be tightened.
  for (const Outcome &o : outcomes) {
    std::map<std::string, std::string> namesByWhy;  // one line per reason: the manifest's, the baseline's
    for (const auto &[output, why] : o.result.accepted) {
      std::string &names = namesByWhy[why];
      names += (names.empty() ? "" : ", ") + (output.empty() ? "the pair" : output);
    }
    for (const auto &[why, names] : namesByWhy) out += "expected: " + o.result.name + ": " + names + " (" + why + ")\n";
    for (const std::string &s : o.stale)
      out += "stale expectation: " + o.result.name + ": " + s + " is now equivalent; remove it from \"expect\"\n";
    for (const std::string &s : o.unmatched)
      out += "expectation names no output: " + o.result.name + ": \"" + s + "\" is not an output of the pair\n";
  }
  out += "worst: " + std::string(verdictName(worst)) + " (exit " + std::to_string(exitCode(worst)) + "); reports in " +
         outDir + "/ (junit.xml, results.sarif, annotations.txt, one .json per pair, .html as the report policy says)\n";
  return out;
}

int writeCiReports(const std::vector<Outcome> &outcomes, const std::string &outDir, const std::string &sourceRoot);

// Note [CI shards]
// `ci MANIFEST --shard K/N` decides the pairs whose place in the manifest is
// K-1 modulo N: deterministic, and balanced to one pair. The shard's report
// folder is complete on its own (JUnit, SARIF, summary of its pairs) and holds
// shard.json, which `ci merge DIR...` reads: the shard, and each pair's name
// and place in the manifest, so the merged reports list the pairs in manifest
// order. A merge with a shard missing, doubled or of another N is an error:
// a CI job that lost a shard must not pass.
std::pair<size_t, size_t> parseShard(const std::string &text, const std::string &where) {
  size_t k = 0, n = 0;
  char rest = 0;
  if (std::sscanf(text.c_str(), "%zu/%zu%c", &k, &n, &rest) != 2 || n == 0 || k == 0 || k > n)
    throw InputError(SourcePos{where}, "a shard is K/N with 1 <= K <= N, not '" + text + "'");
  return {k, n};
}

// Keeps the shard's entries; returns their places in the manifest.
std::vector<size_t> keepShard(Manifest &manifest, const std::string &shard) {
  auto [k, n] = parseShard(shard, "--shard");
  std::vector<CiEntry> mine;
  std::vector<size_t> places;
  for (size_t i = 0; i < manifest.entries.size(); ++i)
    if (i % n == k - 1) {
      places.push_back(i);
      mine.push_back(std::move(manifest.entries[i]));
    }
  manifest.entries = std::move(mine);
  return places;
}

// shard.json, written once the shard's pairs are decided: with each pair, what the manifest
// accepted (Note [Expected verdicts]), which the merge needs and cannot re-derive without it.
void writeShardSummary(const std::string &shard, const Manifest &manifest, const std::vector<size_t> &places,
                       const std::vector<Outcome> &outcomes, const std::string &outDir) {
  nlohmann::json pairs = nlohmann::json::array();
  for (size_t i = 0; i < outcomes.size(); ++i)
    pairs.push_back({{"name", manifest.entries[i].name}, {"index", places[i]},
                     {"accepted", outcomes[i].result.accepted}, {"stale", outcomes[i].stale},
                     {"unmatched", outcomes[i].unmatched}});
  nlohmann::json j = {{"shard", shard}, {"manifest", manifest.path}, {"pairs", pairs}};
  writeFileAtomic((fs::path(outDir) / "shard.json").string(), j.dump(1) + "\n");
}

int runMerge(const CiArgs &args) {
  std::vector<std::pair<size_t, Outcome>> merged;
  try {
    std::error_code ec;
    fs::create_directories(args.outDir, ec);
    if (ec) throw InputError(SourcePos{args.outDir}, "cannot create the report folder: " + ec.message());
    size_t shards = 0;
    std::set<size_t> seen;
    for (const std::string &dir : args.mergeDirs) {
      std::string path = (fs::path(dir) / "shard.json").string();
      nlohmann::json j;
      try {
        j = nlohmann::json::parse(readFile(path));
      } catch (const nlohmann::json::exception &e) {
        throw InputError(SourcePos{path}, std::string("not a shard's summary: ") + e.what());
      }
      if (!j.contains("shard") || !j["shard"].is_string() || !j.contains("pairs") || !j["pairs"].is_array())
        throw InputError(SourcePos{path}, "not a shard's summary: no shard or pairs");
      auto [k, n] = parseShard(j["shard"].get<std::string>(), path);
      if (shards && n != shards) throw InputError(SourcePos{path}, "shard of " + std::to_string(n) + ", others of " + std::to_string(shards));
      if (!seen.insert(k).second) throw InputError(SourcePos{path}, "shard " + std::to_string(k) + " given twice");
      shards = n;
      for (const nlohmann::json &p : j["pairs"]) {
        if (!p.contains("name") || !p["name"].is_string() || !p.contains("index") || !p["index"].is_number_unsigned())
          throw InputError(SourcePos{path}, "a pair without name or index");
        Outcome o;
        o.result.name = p["name"].get<std::string>();
        o.json = readFile((fs::path(dir) / (o.result.name + ".json")).string());
        o.result.result = parseJsonResult(o.json, o.result.ctx);
        o.wallSeconds = o.result.result.stats.seconds;
        try {  // absent in the summaries of shards run before expectations existed
          o.result.accepted = p.value("accepted", std::map<std::string, std::string>{});
          o.stale = p.value("stale", std::vector<std::string>{});
          o.unmatched = p.value("unmatched", std::vector<std::string>{});
        } catch (const nlohmann::json::exception &e) {
          throw InputError(SourcePos{path}, std::string("not a shard's summary: ") + e.what());
        }
        // The merged folder holds every pair's own reports too.
        for (const char *ext : {".json", ".html"}) {
          fs::path from = fs::path(dir) / (o.result.name + ext), to = fs::path(args.outDir) / (o.result.name + ext);
          if (fs::exists(from) && !fs::equivalent(from.parent_path(), to.parent_path(), ec))
            fs::copy_file(from, to, fs::copy_options::overwrite_existing, ec);
        }
        merged.emplace_back(p["index"].get<size_t>(), std::move(o));
      }
    }
    for (size_t k = 1; k <= shards; ++k)
      if (!seen.count(k)) throw InputError(SourcePos{args.mergeDirs.front()}, "shard " + std::to_string(k) + "/" + std::to_string(shards) + " is missing");
  } catch (const InputError &e) {
    std::fprintf(stderr, "torchtv: error: %s\n", e.what());
    return exitCode(Verdict::Error);
  }
  std::stable_sort(merged.begin(), merged.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
  std::vector<Outcome> outcomes;
  for (auto &m : merged) outcomes.push_back(std::move(m.second));
  return writeCiReports(outcomes, args.outDir, args.sourceRoot);
}

Baseline readBaseline(const std::string &dir, const Manifest &manifest) {
  Baseline b{dir, {}};
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError(SourcePos{dir}, "the baseline is not a folder (give an earlier run's --out)");
  for (const CiEntry &e : manifest.entries) {
    std::string path = (fs::path(dir) / (e.name + ".json")).string();
    if (!fs::exists(path, ec)) continue;  // a pair new since the baseline
    ReportContext ctx;
    CheckResult r;
    try {
      r = parseJsonResult(readFile(path), ctx);
    } catch (const InputError &err) {
      throw InputError(SourcePos{path}, std::string("cannot read the baseline: ") + err.what());
    }
    if (r.verdict == Verdict::Error) continue;
    std::map<std::string, Verdict> &failing = b.failing[e.name];
    if (r.outputs.empty() && r.verdict != Verdict::Equivalent) failing[""] = r.verdict;
    for (const OutputResult &o : r.outputs)
      if (o.verdict != Verdict::Equivalent) failing[o.name] = o.verdict;
  }
  return b;
}

int runCi(const CiArgs &args) {
  if (args.merge && args.merge->parsed()) return runMerge(args);
  Manifest manifest;
  std::vector<size_t> places;  // with --shard: the pairs' places in the manifest
  Baseline baseline;
  try {
    if (args.manifest.empty()) throw InputError(SourcePos{"ci"}, "needs a MANIFEST (or: ci merge DIR...)");
    manifest = readManifest(args.manifest);
    std::error_code ec;
    fs::create_directories(args.outDir, ec);
    if (ec) throw InputError(SourcePos{args.outDir}, "cannot create the report folder: " + ec.message());
    if (!args.shard.empty()) places = keepShard(manifest, args.shard);
    if (!args.baselineDir.empty()) baseline = readBaseline(args.baselineDir, manifest);
  } catch (const InputError &e) {
    std::fprintf(stderr, "torchtv: error: %s\n", e.what());
    return exitCode(Verdict::Error);
  }
  size_t total = manifest.entries.size();
  bool bar = args.progress == ColorChoice::Always || (args.progress == ColorChoice::Auto && ::isatty(STDOUT_FILENO));
  Progress progress(total, bar);
  std::vector<Outcome> outcomes(total);
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < total; i = next++) {
      try {
        outcomes[i] = runEntry(manifest.entries[i], args, baseline);
      } catch (const std::exception &e) {
        // A report that cannot be written fails this pair, not the run.
        outcomes[i].result.name = manifest.entries[i].name;
        outcomes[i].result.result = errorResult(e.what());
      }
      progress.finished(outcomes[i]);
    }
  };
  int jobs = std::max(1, std::min<int>(args.jobs, static_cast<int>(total)));
  std::vector<std::thread> threads;
  for (int j = 0; j < jobs; ++j) threads.emplace_back(worker);
  for (std::thread &t : threads) t.join();
  if (!args.shard.empty()) {
    try {
      writeShardSummary(args.shard, manifest, places, outcomes, args.outDir);
    } catch (const std::exception &e) {
      std::fprintf(stderr, "torchtv: error: %s\n", e.what());
      return exitCode(Verdict::Error);
    }
  }
  return writeCiReports(outcomes, args.outDir, args.sourceRoot);
}

// Note [Annotations from ci]
// annotations.txt in the report folder holds the GitHub workflow commands of every pair the gate
// fails on, as `verify --format github` writes them (one per cause, at production's line), with
// the outputs the manifest accepts left out: a workflow step that prints it (`cat
// $OUT/annotations.txt`) annotates the pull request without code scanning. Empty when the gate
// passes.
std::string ciAnnotations(const std::vector<Outcome> &outcomes) {
  std::string text;
  for (const Outcome &o : outcomes) {
    if (gateVerdict(o.result) == Verdict::Equivalent) continue;
    CheckResult shown = o.result.result;
    shown.outputs.erase(std::remove_if(shown.outputs.begin(), shown.outputs.end(),
                                       [&](const OutputResult &out) { return o.result.acceptedWhy(out.name) != nullptr; }),
                        shown.outputs.end());
    text += renderGithub(shown, o.result.ctx);
  }
  return text;
}

int writeCiReports(const std::vector<Outcome> &outcomes, const std::string &outDir, const std::string &sourceRoot) {
  Verdict worst = Verdict::Equivalent;
  std::vector<NamedResult> all;
  for (const Outcome &o : outcomes) {
    const Verdict gate = gateVerdict(o.result);
    if (severity(gate) > severity(worst)) worst = gate;
    all.push_back(o.result);
  }
  try {
    writeFileAtomic((fs::path(outDir) / "junit.xml").string(), renderJunit(all));
    writeFileAtomic((fs::path(outDir) / "results.sarif").string(), renderSarif(all, versionString(), sourceRoot));
    writeFileAtomic((fs::path(outDir) / "annotations.txt").string(), ciAnnotations(outcomes));
  } catch (const InputError &e) {
    std::fprintf(stderr, "torchtv: error: %s\n", e.what());
    worst = Verdict::Error;
  }
  std::string summary = summaryTable(outcomes, outDir, worst);
  std::fwrite(summary.data(), 1, summary.size(), stdout);
  std::fflush(stdout);
  return exitCode(worst);
}

}  // namespace

Command addCiCommand(CLI::App &app) {
  auto args = std::make_shared<CiArgs>();
  args->root = &app;
  auto *cmd = app.add_subcommand("ci", "Decide every pair of a manifest and write CI reports (exit: worst verdict)");
  cmd->add_option("manifest", args->manifest, "TOML manifest listing the pairs");
  cmd->add_option("--shard", args->shard, "Decide only shard K of N (K/N, e.g. 2/4) of the manifest's pairs");
  args->merge = cmd->add_subcommand("merge", "Join the report folders of `ci --shard` runs into one summary, JUnit and SARIF");
  args->merge->add_option("dirs", args->mergeDirs, "Report folders of the shards")->required();
  args->merge->add_option("--out", args->outDir, "Folder for the merged reports (default torchtv-reports)");
  cmd->add_option("-j,--jobs", args->jobs, "Pairs checked in parallel")->check(atLeast(1, "pairs in parallel", "", true));
  addCacheOptions(*cmd, args->cache, args->noCache);
  cmd->add_option("--out", args->outDir, "Folder for the reports (default torchtv-reports)");
  cmd->add_flag("--sandbox", args->sandbox,
                "Capture every pair file under --sandbox, as a manifest's untrusted = true does (Note [The "
                "capture sandbox])");
  cmd->add_flag("--no-report", args->noReport,
                "No HTML report for any pair (the manifest's report = \"failures\" by default draws one for each "
                "pair that is not equivalent)");
  cmd->add_option("--baseline", args->baselineDir,
                  "An earlier run's report folder: outputs that failed there are accepted at that verdict or a "
                  "better one; the job fails on new failures only (Note [Baseline])");
  addSourceRootOption(*cmd, args->sourceRoot);
  addChoiceOption<ColorChoice>(*cmd, "--progress", args->progress,
                               {{"auto", ColorChoice::Auto}, {"bar", ColorChoice::Always}, {"lines", ColorChoice::Never}},
                               "progress mode", "auto (a bar on a terminal), bar, or lines");
  return {cmd, [args] {
            args->sourceRoot = sourceRootOf(args->sourceRoot);
            return runCi(*args);
          }};
}

}  // namespace torchtv::cli
