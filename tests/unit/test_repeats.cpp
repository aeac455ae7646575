// Repeated layers (Note [Repeated layers]): tandem repeats of op/source-line keys,
// and their folding in the HTML report (Note [Folded layers]).
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "ir/text_format.h"
#include "src/report/diff_view.h"
#include "src/report/html_fold.h"
#include "src/report/html_graph.h"
#include "src/report/repeats.h"
#include "src/report/report.h"
#include "src/verify/check.h"

using namespace torchtv;

namespace {

// A residual block of four ops at lines 10-13 (and `extra` exps at line 14),
// `layers` times; `odd` (1-based) swaps that layer's exp for a sin at the same line.
std::string blocks(int layers, int odd = 0, int extra = 0) {
  std::string text = "graph @g(%x: f32[4], %w: f32[4]) -> (f32[4]) {\n  %h0: f32[4] = aten::neg(%x) loc(\"m.py\":2)\n";
  for (int k = 1; k <= layers; ++k) {
    std::string p = "%h" + std::to_string(k - 1), s = std::to_string(k);
    text += "  %a" + s + ": f32[4] = aten::mul.Tensor(" + p + ", %w) loc(\"m.py\":10)\n";
    text += "  %b" + s + ": f32[4] = " + (k == odd ? "aten::sin" : "aten::exp") + "(%a" + s + ") loc(\"m.py\":11)\n";
    text += "  %c" + s + ": f32[4] = aten::add.Scalar(%b" + s + ") {other=1.0} loc(\"m.py\":12)\n";
    std::string last = "%c" + s;
    for (int e = 0; e < extra; ++e) {
      std::string next = "%e" + std::to_string(e) + "_" + s;
      text += "  " + next + ": f32[4] = aten::exp(" + last + ") loc(\"m.py\":14)\n";
      last = next;
    }
    text += "  %h" + s + ": f32[4] = aten::add.Tensor(" + p + ", " + last + ") loc(\"m.py\":13)\n";
  }
  return text + "  %y: f32[4] = aten::relu(%h" + std::to_string(layers) + ") loc(\"m.py\":20)\n  return %y\n}\n";
}

std::vector<LayerGroup> groupsOf(const std::string &text) {
  Module m = parseModule(text, "blocks.tvir");
  const Graph &g = *m.find("g");
  DiffView v = buildDiffView(CheckResult{}, g, g);
  return layerGroups(v.reference, 3);
}

}  // namespace

TEST_CASE("tandemRepeats: periods, interruptions, and no repeat where there is none") {
  // abcd abcd abcd: three copies of period 4.
  std::vector<Repeat> r = tandemRepeats({9, 1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4, 8}, 3);
  REQUIRE(r.size() == 1);
  CHECK(r[0].start == 1);
  CHECK(r[0].period == 4);
  CHECK(r[0].count == 3);
  // abcd abcd x abcd: the different key breaks the run after two copies.
  r = tandemRepeats({1, 2, 3, 4, 1, 2, 3, 4, 7, 1, 2, 3, 4}, 3);
  REQUIRE(r.size() == 1);
  CHECK(r[0].start == 0);
  CHECK(r[0].count == 2);
  // Nothing repeats: no repeat.
  CHECK(tandemRepeats({1, 2, 3, 4, 5, 6, 7, 8, 9}, 3).empty());
  // Periods below the minimum are not repeats (an op applied twice in a row).
  CHECK(tandemRepeats({1, 2, 2, 2, 2, 3}, 3).empty());
  // The smaller period wins when a multiple covers the same keys: 4 copies, not 2 double ones.
  r = tandemRepeats({1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3}, 3);
  REQUIRE(r.size() == 1);
  CHECK(r[0].period == 3);
  CHECK(r[0].count == 4);
  // Two separate repeats (a forward, then a backward of another period) are both found.
  r = tandemRepeats({1, 2, 3, 1, 2, 3, 1, 2, 3, 0, 4, 5, 6, 7, 4, 5, 6, 7}, 3);
  REQUIRE(r.size() == 2);
  CHECK(r[0].period == 3);
  CHECK(r[0].count == 3);
  CHECK(r[1].start == 10);
  CHECK(r[1].period == 4);
  CHECK(r[1].count == 2);
}

TEST_CASE("layerGroups: a 3-layer graph gives 3 groups of one layer each") {
  std::vector<LayerGroup> g = groupsOf(blocks(3));
  REQUIRE(g.size() == 3);
  for (int k = 0; k < 3; ++k) {
    CHECK(g[k].size == 4);
    CHECK(g[k].index == k + 1);
    CHECK(g[k].of == 3);
  }
  CHECK(g[1].first == g[0].first + 4);
  // The groups start after the graph inputs (2) and the prologue's neg.
  CHECK(g[0].first == 3);
}

TEST_CASE("layerGroups: no groups without a repeat; a different op in a layer breaks the group") {
  CHECK(groupsOf(blocks(1)).empty());
  // Four layers, the third one different: layers 1-2 repeat, layer 4 stands alone.
  std::vector<LayerGroup> g = groupsOf(blocks(4, 3));
  REQUIRE(g.size() == 2);
  CHECK(g[0].of == 2);
  CHECK(g[1].first + g[1].size <= 3 + 2 * 4 + 1);  // nothing past the odd layer's first ops
}

namespace {

// The text between `<script ... id="ID">` and `</script>`, as JSON.
nlohmann::json scriptJson(const std::string &html, const std::string &id) {
  std::string open = "id=\"" + id + "\">";
  size_t at = html.find(open);
  REQUIRE(at != std::string::npos);
  at += open.size();
  return nlohmann::json::parse(html.substr(at, html.find("</script>", at) - at));
}

}  // namespace

TEST_CASE("HTML report folds repeated layers: the divergence's expanded, the others one box each") {
  std::ifstream in(std::string(TORCHTV_SOURCE_DIR) + "/tests/browser/layers3_eps.tvir");
  std::stringstream text;
  text << in.rdbuf();
  Module m = parseModule(text.str(), "layers3_eps.tvir");
  const Graph &ref = *m.find("reference"), &prod = *m.find("production");
  CheckResult r = checkGraphs(ref, prod, CheckOptions{});
  REQUIRE(r.verdict == Verdict::NotEquivalent);
  ReportContext ctx;
  ctx.useGraphsOf(r, ref, prod);
  DiffView v = buildDiffView(r, *ctx.reference, *ctx.production);

  // The folding itself: three repeats a side; the one holding the divergence is
  // expanded and drawn whole, the others are drawn as boxes only.
  for (const SideView *side : {&v.reference, &v.production}) {
    const std::string site = (side == &v.reference ? r.outputs[0].referenceSite : r.outputs[0].productionSite)->value;
    int at = -1;
    for (size_t i = 0; i < side->nodes.size(); ++i)
      if (side->nodes[i].value->name == site) at = static_cast<int>(i);
    REQUIRE(at >= 0);
    std::vector<bool> visible = neighbourhood(*side, r.outputs, 2);
    Folding f = foldLayers(*side, {at}, visible);
    REQUIRE(f.groups.size() == 3);
    int mine = f.groupOf[at];
    REQUIRE(mine >= 0);
    CHECK_FALSE(f.collapsed[mine]);
    for (size_t g = 0; g < f.groups.size(); ++g)
      for (int i = f.groups[g].first; i < f.groups[g].first + f.groups[g].size; ++i)
        CHECK(visible[i] == !f.collapsed[g]);
    std::string dot = sideToDot(*side, "s", r.outputs, visible, "", &f);
    for (size_t g = 0; g < f.groups.size(); ++g)
      CHECK((dot.find("id=\"s-g" + std::to_string(g) + "\", class=\"tv-group") != std::string::npos) == f.collapsed[g]);
  }

  // The page: each collapsed group's members are in #tv-groups and #tv-nodes; in the
  // table fallback a group is a header row and its members' rows are hidden.
  HtmlOptions options;
  options.dotPath = "";
  std::string html = renderHtml(r, ctx, options);
  nlohmann::json groups = scriptJson(html, "tv-groups"), nodes = scriptJson(html, "tv-nodes");
  REQUIRE(groups.size() >= 2);  // at least one folded repeat a side
  std::regex label("repeat [123] of 3");
  for (const auto &[id, g] : groups.items()) {
    CHECK(std::regex_match(g["label"].get<std::string>(), label));
    REQUIRE(g.contains("nodes"));
    CHECK(g["nodes"].size() == g["size"].get<size_t>());
    CHECK(html.find("<tr id=\"" + id + "\" class=\"tv-group tv-group-row\">") != std::string::npos);
    for (const auto &member : g["nodes"]) {
      std::string row = member.get<std::string>();
      CHECK(nodes.contains(row));
      CHECK(std::regex_search(html, std::regex("<tr id=\"" + row + "\" class=\"node tv-[a-z]+\" data-group=\"" + id +
                                               "\" hidden>")));
    }
  }
  // The divergence rows are not folded; the header's node counts are the graphs'.
  CHECK(std::regex_search(html, std::regex("<tr id=\"ref-n[0-9]+\" class=\"node tv-divergence\"><td>")));
  CHECK(html.find("(" + std::to_string(r.stats.referenceNodes) + " nodes)") != std::string::npos);
}

TEST_CASE("foldLayers: a long run of collapsed repeats keeps two boxes at each end, the middle one range") {
  Module m = parseModule(blocks(12, 0, 4), "blocks.tvir");
  const Graph &g = *m.find("g");
  DiffView v = buildDiffView(CheckResult{}, g, g);
  std::vector<bool> visible;
  std::vector<LayerGroup> groups = layerGroups(v.reference, kMinLayerNodes);
  REQUIRE(groups.size() == 12);
  // Keep layer 6: layers 1-5 are a run of kLongestRun (no range), 7-12 one longer.
  Folding f = foldLayers(v.reference, {groups[5].first}, visible);
  REQUIRE(f.ranges.size() == 1);
  CHECK(f.ranges[0].first == 8);
  CHECK(f.ranges[0].last == 9);
  for (int k = 0; k < 12; ++k) CHECK((f.rangeOf[k] == 0) == (k == 8 || k == 9));
  CHECK(rangeLabel(f, f.ranges[0]) == "repeats 9-10 of 12");
  std::string dot = sideToDot(v.reference, "s", {}, visible, "", &f);
  CHECK(dot.find("id=\"s-r0\"") != std::string::npos);
  CHECK(dot.find("id=\"s-g8\"") == std::string::npos);  // inside the range
  CHECK(dot.find("id=\"s-g7\"") != std::string::npos);
}
