// Report formats: JSON round trip, SARIF, JUnit, GitHub annotations, the diff
// view behind the HTML report and --explain, and the file/process helpers.
#include <cmath>
#include <csignal>
#include <unistd.h>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "ir/diagnostic.h"
#include "ir/text_format.h"
#include "src/report/describe.h"
#include "src/report/diff_view.h"
#include "src/report/html_graph.h"
#include "src/report/report.h"
#include "src/util/atomic_file.h"
#include "src/util/subprocess.h"
#include "src/verify/check.h"

using namespace torchtv;

namespace {

const char *kPair = R"(graph @reference(%x: f32[4], %w: f32[4]) -> (f32[], f32[4]) {
  %loss: f32[] = aten::sum(%x) loc("ref.py":3)
  %a: f32[4] = aten::mul.Tensor(%x, %w) loc("ref.py":4)
  %g: f32[4] = aten::add.Scalar(%a) {other=1.0} loc("ref.py":5)
  return %loss, %g
}
graph @production(%x: f32[4], %w: f32[4]) -> (f32[], f32[4]) {
  %dead: f32[4] = aten::neg(%x)
  %loss: f32[] = aten::sum(%x) loc("prod.py":10)
  %a: f32[4] = aten::mul.Tensor(%w, %x) loc("prod.py":11)
  %g: f32[4] = aten::add.Scalar(%a) {other=2.0} loc("prod.py":12)
  return %loss, %g
}
)";

struct Checked {
  Module module;
  CheckResult result;
  ReportContext ctx;
};

Checked checkText(const char *text) {
  Checked c{parseModule(text, "pair.tvir"), {}, {}};
  const Graph &ref = *c.module.find("reference"), &prod = *c.module.find("production");
  // The graphs as written: these tests are about the views (dead code, pairing),
  // which normalization would simplify away.
  CheckOptions options;
  options.normalization = Normalization::Off;
  c.result = checkGraphs(ref, prod, options);
  c.ctx.referencePath = c.ctx.productionPath = "pair.tvir";
  c.ctx.version = "test";
  c.ctx.useGraphsOf(c.result, ref, prod);
  return c;
}

// A result of one output `name`, its verdict the result's, diverging at production's `site`.
CheckResult withOneOutput(Verdict verdict, const std::string &reason, const std::string &name,
                          const std::string &outputReason, const Site &site) {
  CheckResult r;
  r.verdict = verdict;
  r.reason = reason;
  OutputResult o;
  o.name = name;
  o.verdict = verdict;
  o.reason = outputReason;
  o.productionSite = site;
  r.outputs.push_back(o);
  return r;
}

CheckResult withCounterexample() {
  CheckResult r = withOneOutput(Verdict::NotEquivalent, "some outputs differ", "grad", "values differ <&\"'>",
                                Site{"t2", "aten::add.Scalar", "fast path.py:11"});
  r.outputs[0].referenceSite = Site{"e", "aten::add.Scalar", "ref.py:6"};
  Counterexample c;
  c.output = "grad";
  c.index = {1, 2};
  c.referenceValue = NAN;
  c.productionValue = -0.0;
  c.inputs.push_back({"x", "f32[2]", {1.5, INFINITY}});
  r.counterexample = c;
  return r;
}

}  // namespace

TEST_CASE("renderJson and parseJsonResult round-trip, non-finite values included") {
  CheckResult r = withCounterexample();
  ReportContext ctx{"a.tvir", "b.tvir", "1.2.3"};
  ReportContext back;
  CheckResult again = parseJsonResult(renderJson(r, ctx), back);
  CHECK(back.referencePath == "a.tvir");
  CHECK(back.version == "1.2.3");
  CHECK(again.verdict == Verdict::NotEquivalent);
  REQUIRE(again.outputs.size() == 1);
  CHECK(again.outputs[0].reason == r.outputs[0].reason);
  CHECK(again.outputs[0].productionSite->loc == "fast path.py:11");
  REQUIRE(again.counterexample);
  CHECK(std::isnan(again.counterexample->referenceValue));
  CHECK(std::signbit(again.counterexample->productionValue));
  CHECK(std::isinf(again.counterexample->inputs[0].values[1]));
  CHECK(again.counterexample->index == std::vector<long long>{1, 2});
  CHECK_FALSE(again.counterexample->firstDifference);
  CHECK_THROWS_AS(parseJsonResult("{\"verdict\": \"maybe\"}", back), InputError);
  // Outputs whose types differ: the types are the difference, no values (JSON nulls), and back.
  IntermediateDifference types;
  types.production = Site{"s", "aten::sum.dim_IntList", "p.py:2"};
  types.typeDifference = "shape differs: production f32[4], reference f32[4,1]";
  types.hasValues = false;
  r.counterexample->firstDifference = types;
  const std::string typed = renderJson(r, ctx);
  CHECK(typed.find("\"production_value\": null") != std::string::npos);
  CheckResult typesBack = parseJsonResult(typed, back);
  REQUIRE(typesBack.counterexample->firstDifference);
  CHECK_FALSE(typesBack.counterexample->firstDifference->hasValues);
  CHECK(typesBack.counterexample->firstDifference->typeDifference == types.typeDifference);
  CHECK_THROWS_AS(parseJsonResult("not json", back), InputError);
}

TEST_CASE("SARIF: one result per failing output, at the production source line first") {
  Checked c = checkText(kPair);
  auto log = nlohmann::json::parse(renderSarif({{"pair1", c.result, c.ctx}}, "9.9"));
  CHECK(log["version"] == "2.1.0");
  auto &run = log["runs"][0];
  CHECK(run["tool"]["driver"]["name"] == "torchtv");
  std::set<std::string> ruleIds;
  for (auto &rule : run["tool"]["driver"]["rules"]) ruleIds.insert(rule["id"].get<std::string>());
  // Note [SARIF rule ids]: these never change.
  CHECK(ruleIds == std::set<std::string>{"TTV001", "TTV002", "TTV003"});
  REQUIRE(run["results"].size() == 1);  // loss is equivalent, g is not
  auto &res = run["results"][0];
  CHECK(res["ruleId"] == "TTV001");  // the prover refutes g
  CHECK(res["properties"]["output"] == "g");
  CHECK(res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "prod.py");
  CHECK(res["locations"][0]["physicalLocation"]["region"]["startLine"] == 12);
  CHECK(res["locations"][1]["physicalLocation"]["artifactLocation"]["uri"] == "pair.tvir");
  CHECK(res["relatedLocations"][0]["physicalLocation"]["region"]["startLine"] == 5);

  CheckResult err = errorResult("unknown op", "bad file.tvir:4:16");
  auto errLog = nlohmann::json::parse(renderSarif({{"e", err, ReportContext{}}}, "9.9"));
  auto &loc = errLog["runs"][0]["results"][0]["locations"][0]["physicalLocation"];
  CHECK(errLog["runs"][0]["results"][0]["ruleId"] == "TTV003");
  CHECK(loc["artifactLocation"]["uri"] == "bad%20file.tvir");
  CHECK(loc["region"]["startLine"] == 4);
  CHECK(loc["region"]["startColumn"] == 16);
}

TEST_CASE("JUnit: one testcase per output, escaped, failures carry the counterexample") {
  CheckResult r = withCounterexample();
  std::string xml = renderJunit({{"p", r, ReportContext{"a", "b", "v"}}});
  CHECK(xml.find("tests=\"1\" failures=\"1\" errors=\"0\"") != std::string::npos);
  CHECK(xml.find("<failure type=\"not_equivalent\" message=\"values differ &lt;&amp;&quot;&#39;&gt;\"") !=
        std::string::npos);
  CHECK(xml.find("at index [1,2]: reference nan, production -0.0") != std::string::npos);
  std::string err = renderJunit({{"q", errorResult("boom"), ReportContext{}}});
  CHECK(err.find("<error type=\"error\" message=\"boom\">") != std::string::npos);
}

TEST_CASE("an unknown output's runs and what would decide it reach every format, and JSON reads them back") {
  // Note [Evidence of undecided outputs], Note [What would decide it]
  CheckResult r = withOneOutput(Verdict::Unknown, "some outputs could not be decided", "y",
                                "not proven: no semantics for aten::as_strided", Site{"y", "aten::as_strided", "p.py:3"});
  OutputResult &o = r.outputs[0];
  o.runs = "the two functions agree bit for bit on 4 inputs";
  o.toDecide = "a definition of aten::as_strided";
  ReportContext ctx{"a", "b", "v"};
  const std::string runs = "runs of the code: " + o.runs, hint = "to decide it, try: " + o.toDecide;
  for (const std::string &text : {renderText(r, ctx), renderJunit({{"p", r, ctx}}), renderSarif({{"p", r, ctx}}, "v"),
                                  renderGithub(r, ctx)}) {
    CHECK(text.find(runs) != std::string::npos);
    CHECK(text.find(hint) != std::string::npos);
  }
  ReportContext back;
  CheckResult again = parseJsonResult(renderJson(r, ctx), back);
  REQUIRE(again.outputs.size() == 1);
  CHECK(again.outputs[0].runs == o.runs);
  CHECK(again.outputs[0].toDecide == o.toDecide);
}

TEST_CASE("GitHub annotations escape properties and data") {
  CheckResult r = withCounterexample();
  std::string out = renderGithub(r, ReportContext{"a", "b", "v"});
  CHECK(out.find("::error file=fast path.py,line=11,title=torchtv%3A output grad not_equivalent::") !=
        std::string::npos);
  CHECK(out.find("%0A") != std::string::npos);  // multi-line message kept on one line
  std::string annotation = out.substr(out.find("::error"));
  CHECK(annotation.find('\n') == annotation.size() - 1);
}

TEST_CASE("parseFileLine takes file:line and file:line:col apart") {
  CHECK(parseFileLine("a/b.py:12").line == 12);
  CHECK(parseFileLine("a/b.py:12").file == "a/b.py");
  FileLine three = parseFileLine("c:/x.tvir:4:16");
  CHECK(three.file == "c:/x.tvir");
  CHECK(three.line == 4);
  CHECK(three.col == 16);
  CHECK(parseFileLine("nofile").line == 0);
}

TEST_CASE("diff view: matched, residual, divergence and dead nodes, paired across sides") {
  Checked c = checkText(kPair);
  DiffView v = buildDiffView(c.result, *c.ctx.reference, *c.ctx.production);
  auto find = [](const SideView &s, const std::string &name) -> const ViewNode & {
    for (const ViewNode &n : s.nodes)
      if (n.value->name == name) return n;
    FAIL("no node " << name);
    return s.nodes[0];
  };
  CHECK(find(v.reference, "a").status == NodeStatus::Matched);
  CHECK(find(v.reference, "a").partner->name == "a");
  CHECK(find(v.reference, "g").status == NodeStatus::Divergence);
  CHECK(find(v.production, "g").status == NodeStatus::Divergence);
  CHECK(find(v.production, "dead").status == NodeStatus::Dead);
  CHECK(find(v.production, "x").partner == c.ctx.reference->inputs()[0]);
  Region region = residualRegion(v.production, 1);
  REQUIRE(region.residual.size() == 1);
  CHECK(v.production.nodes[region.residual[0]].value->name == "g");
  REQUIRE(region.frontier.size() == 1);
  CHECK(v.production.nodes[region.frontier[0]].value->name == "a");
}

TEST_CASE("--explain shows both sides of the region with source lines") {
  Checked c = checkText(kPair);
  std::string text = renderExplain(c.result, c.ctx, ColorMode::Never);
  CHECK(text.find("! %g = aten::add.Scalar(%a) {alpha=1, other=1.0}") != std::string::npos);
  CHECK(text.find("! %g = aten::add.Scalar(%a) {alpha=1, other=2.0}") != std::string::npos);
  CHECK(text.find("ref.py:5") != std::string::npos);
  CHECK(text.find("prod.py:12") != std::string::npos);
  CHECK(text.find("\033[") == std::string::npos);
  CHECK(renderExplain(c.result, c.ctx, ColorMode::Always).find("\033[") != std::string::npos);
}

TEST_CASE("HTML report without Graphviz: tables, the verdict table, a pairing for every matched node") {
  Checked c = checkText(kPair);
  HtmlOptions options;
  options.dotPath = "";
  std::string html = renderHtml(c.result, c.ctx, options);
  CHECK(html.find("id=\"verdict-table\"") != std::string::npos);
  CHECK(html.find("id=\"no-graphviz\"") != std::string::npos);
  CHECK(html.find("class=\"node tv-divergence\"") != std::string::npos);
  CHECK(html.find("\"ref-n2\":\"prod-n3\"") != std::string::npos);  // %loss <-> %loss (production has %dead first)
  // Nothing is fetched: no external URL in any src or href.
  CHECK(html.find("src=\"http") == std::string::npos);
  CHECK(html.find("href=\"http") == std::string::npos);
}

TEST_CASE("HTML report collapses big graphs around the divergence") {
  std::string ref = "graph @reference(%x: f32[4]) -> (f32[4]) {\n", prod = "graph @production(%x: f32[4]) -> (f32[4]) {\n";
  std::string prev = "x";
  for (int i = 0; i < 80; ++i) {
    // exp: a chain normalization cannot shorten (neg(neg(x)) would fold away).
    std::string line = "  %v" + std::to_string(i) + ": f32[4] = aten::exp(%" + prev + ")\n";
    ref += line, prod += line;
    prev = "v" + std::to_string(i);
  }
  ref += "  %y: f32[4] = aten::relu(%" + prev + ")\n  return %y\n}\n";
  prod += "  %y: f32[4] = aten::sigmoid(%" + prev + ")\n  return %y\n}\n";
  Checked c = checkText((ref + prod).c_str());
  DiffView v = buildDiffView(c.result, *c.ctx.reference, *c.ctx.production);
  HtmlOptions options;
  std::vector<bool> shown = neighbourhood(v.reference, c.result.outputs, options.neighbourhoodRadius);
  size_t count = 0;
  for (bool b : shown) count += b;
  CHECK(count == 3);  // %y and two nodes above it
}

TEST_CASE("HTML report: the first differing intermediate in the summary and the panel, constants on nodes") {
  Checked c = checkText(kPair);
  REQUIRE(c.result.outputs.size() == 2);
  REQUIRE(c.result.outputs[1].verdict == Verdict::NotEquivalent);
  REQUIRE(c.result.counterexample);
  REQUIRE(c.result.counterexample->firstDifference);
  const IntermediateDifference &d = *c.result.counterexample->firstDifference;
  CHECK(d.reference.value == "g");
  CHECK(d.production.value == "g");
  // add.Scalar with other 1.0 against 2.0: the values differ by exactly one.
  CHECK(d.productionValue - d.referenceValue == doctest::Approx(1.0));
  ReportContext back;
  CheckResult again = parseJsonResult(renderJson(c.result, c.ctx), back);
  REQUIRE(again.counterexample->firstDifference);
  CHECK(again.counterexample->firstDifference->index == d.index);
  CHECK(again.counterexample->firstDifference->productionValue == d.productionValue);
  HtmlOptions options;
  options.dotPath = "";
  std::string html = renderHtml(c.result, c.ctx, options);
  CHECK(html.find("id=\"first-difference\"") != std::string::npos);
  CHECK(html.find("id=\"first-divergence\"") != std::string::npos);
  // The constants are on the nodes and in the panel's data: the whole difference here.
  CHECK(html.find("other=1.0") != std::string::npos);
  CHECK(html.find("other=2.0") != std::string::npos);
  CHECK(html.find("\"first_difference\":\"first differing intermediate: ") != std::string::npos);
}

TEST_CASE("HTML report of an equivalent big pair: a summary, no divergence, no drawing, proven outputs folded") {
  std::string ref = "graph @reference(%x: f32[4]) -> (", prod = "graph @production(%x: f32[4]) -> (";
  std::string body, returns;
  for (int i = 0; i < 80; ++i) {
    std::string v = "v" + std::to_string(i);
    body += "  %" + v + ": f32[4] = aten::exp(%" + (i ? "v" + std::to_string(i - 1) : std::string("x")) + ")\n";
    returns += (i ? ", %" : "%") + v;
    ref += i ? ", f32[4]" : "f32[4]";
    prod += i ? ", f32[4]" : "f32[4]";
  }
  std::string text = ref + ") {\n" + body + "  return " + returns + "\n}\n" + prod + ") {\n" + body + "  return " +
                     returns + "\n}\n";
  Checked c = checkText(text.c_str());
  REQUIRE(c.result.verdict == Verdict::Equivalent);
  HtmlOptions options;
  options.dotPath = "/nonexistent/dot";  // would fail if it were run
  std::string html = renderHtml(c.result, c.ctx, options);
  CHECK(html.find("id=\"equivalent-summary\"") != std::string::npos);
  CHECK(html.find("First divergence") == std::string::npos);
  CHECK(html.find("id=\"not-drawn\"") != std::string::npos);
  CHECK(html.find("id=\"no-graphviz\"") == std::string::npos);
  CHECK(html.find("<details id=\"proven-outputs\"><summary>80 proven outputs") != std::string::npos);
  CHECK(html.find("id=\"verdict-table\"") == std::string::npos);
}

TEST_CASE("Collapsed view: only the cone of the failing outputs, around their divergence") {
  // Two independent chains; only the second output's chain differs at its end.
  std::string ref = "graph @reference(%x: f32[4]) -> (f32[4], f32[4]) {\n",
              prod = "graph @production(%x: f32[4]) -> (f32[4], f32[4]) {\n";
  std::string body;
  for (int i = 0; i < 40; ++i) {
    body += "  %a" + std::to_string(i) + ": f32[4] = aten::exp(%" + (i ? "a" + std::to_string(i - 1) : std::string("x")) + ")\n";
    body += "  %b" + std::to_string(i) + ": f32[4] = aten::sin(%" + (i ? "b" + std::to_string(i - 1) : std::string("x")) + ")\n";
  }
  ref += body + "  %y: f32[4] = aten::relu(%b39)\n  return %a39, %y\n}\n";
  prod += body + "  %y: f32[4] = aten::sigmoid(%b39)\n  return %a39, %y\n}\n";
  Checked c = checkText((ref + prod).c_str());
  REQUIRE(c.result.outputs[0].verdict == Verdict::Equivalent);
  REQUIRE(c.result.outputs[1].verdict != Verdict::Equivalent);
  DiffView v = buildDiffView(c.result, *c.ctx.reference, *c.ctx.production);
  std::vector<bool> shown = neighbourhood(v.reference, c.result.outputs, 2);
  std::set<std::string> names;
  for (size_t i = 0; i < shown.size(); ++i)
    if (shown[i]) names.insert(v.reference.nodes[i].value->name);
  CHECK(names == std::set<std::string>{"y", "b39", "b38"});
  std::string dot = sideToDot(v.reference, "ref", c.result.outputs, shown, "");
  const auto &outNames = c.ctx.reference->outputNames();
  CHECK(dot.find("\"output " + outNames[0]) == std::string::npos);  // the proven output's node is folded
  CHECK(dot.find("\"output " + outNames[1]) != std::string::npos);
}

TEST_CASE("writeFileAtomic replaces the whole file and leaves no temporary behind") {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("torchtv-atomic-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string path = (dir / "r.html").string();
  writeFileAtomic(path, "first");
  writeFileAtomic(path, "second, longer");
  std::ifstream in(path);
  std::string content((std::istreambuf_iterator<char>(in)), {});
  CHECK(content == "second, longer");
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);
  CHECK_THROWS_AS(writeFileAtomic((dir / "missing" / "x").string(), "x"), InputError);
  fs::remove_all(dir);
}

TEST_CASE("runProcess: output, exit codes, signals and time limits become results, never exceptions") {
  ProcessOptions in;
  in.stdinText = std::string(200000, 'a');  // more than a pipe holds
  ProcessResult cat = runProcess({"sh", "-c", "wc -c; echo err >&2; exit 4"}, in);
  CHECK(cat.started);
  CHECK(cat.exitCode == 4);
  CHECK(cat.out.find("200000") != std::string::npos);
  CHECK(cat.err == "err\n");
  ProcessResult crash = runProcess({"sh", "-c", "kill -SEGV $$"});
  CHECK(crash.signal == SIGSEGV);
  CHECK(describeExit(crash, 1).find("signal 11") != std::string::npos);
  ProcessOptions quick;
  quick.timeoutSeconds = 0.2;
  ProcessResult hang = runProcess({"sleep", "30"}, quick);
  CHECK(hang.timedOut);
  ProcessResult missing = runProcess({"/nonexistent/program"});
  CHECK_FALSE(missing.started);
  CHECK(missing.error.find("cannot run") != std::string::npos);
}

TEST_CASE("one alert per cause: outputs diverging at one line are grouped in every format") {
  // Note [One alert per cause]: three outputs diverge at two runs of one line (a loop), one at
  // another line; the counterexample's output moves its group to the first differing
  // intermediate, at that same line. Before, each format gave one alert per output.
  CheckResult r;
  r.verdict = Verdict::NotEquivalent;
  auto failing = [&](const std::string &name, Verdict v, const std::string &value, const std::string &loc) {
    OutputResult o;
    o.name = name;
    o.verdict = v;
    o.reason = "differs";
    o.productionSite = Site{value, "aten::mul.Scalar", loc};
    r.outputs.push_back(o);
  };
  OutputResult proven;
  proven.name = "loss";
  proven.verdict = Verdict::Equivalent;
  proven.level = Level::Real;
  r.outputs.push_back(proven);
  failing("grad_a", Verdict::Unknown, "m1", "prod.py:58");
  failing("grad_b", Verdict::NotEquivalent, "m5", "prod.py:13");
  failing("grad_c", Verdict::NotEquivalent, "m5", "prod.py:13");
  failing("grad_d", Verdict::Unknown, "m9", "prod.py:13");
  Counterexample c;
  c.output = "grad_b";
  IntermediateDifference d;
  d.production = Site{"m17", "aten::mul.Scalar", "prod.py:13", 4, 4};
  d.reference = Site{"r3", "aten::mul.Scalar", "ref.py:32"};
  c.firstDifference = d;
  r.counterexample = c;
  std::vector<CauseGroup> groups = causeGroups(r);
  REQUIRE(groups.size() == 2);
  CHECK(groups[0].production->value == "m17");  // the refuted group first, at the evidence
  CHECK(groups[0].outputs.size() == 3);
  CHECK(groups[0].verdict == Verdict::NotEquivalent);
  CHECK(groups[1].outputs.size() == 1);

  ReportContext ctx{"ref.py", "prod.py", "v"};
  std::string gh = renderGithub(r, ctx);
  size_t annotations = 0;
  for (size_t at = gh.find("::error"); at != std::string::npos; at = gh.find("::error", at + 1)) ++annotations;
  CHECK(annotations == 2);
  CHECK(gh.find("::error file=prod.py,line=13,title=torchtv%3A 3 outputs not_equivalent::") < gh.find("line=58"));
  nlohmann::json sarif = nlohmann::json::parse(renderSarif({{"p", r, ctx}}, "v"));
  auto &results = sarif["runs"][0]["results"];
  REQUIRE(results.size() == 2);
  CHECK(results[0]["properties"]["outputs"].size() == 3);
  CHECK(results[0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 13);
  std::string text = renderText(r, ctx, TextOptions{});
  CHECK(text.find("3 outputs diverge where production's %m17 = aten::mul.Scalar (prod.py:13, run 4 of 4 of this line) "
                  "does:") != std::string::npos);
  CHECK(text.find("3 outputs diverge") < text.find("output grad_a:"));
  nlohmann::json j = nlohmann::json::parse(renderJson(r, ctx));
  CHECK(j["causes"].size() == 2);
  CHECK(j["causes"][0]["production_site"]["run"] == 4);
  std::string xml = renderJunit({{"p", r, ctx}});
  CHECK(xml.find("same cause as output grad_b") != std::string::npos);
}
