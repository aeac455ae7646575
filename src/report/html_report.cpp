// The HTML diff report: one self-contained page with both graphs side by side.
#include <chrono>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "src/report/describe.h"
#include "src/report/diff_view.h"
#include "src/report/escape.h"
#include "src/report/graphviz.h"
#include "src/report/html_assets.h"
#include "src/report/html_fold.h"
#include "src/report/html_graph.h"
#include "src/report/report.h"
#include "src/verify/roundings.h"

namespace torchtv {

namespace {

std::string verdictSpan(Verdict v, Level l) {
  return "<span class=\"verdict " + std::string(verdictName(v)) + "\">" + xmlEscape(verdictWithLevel(v, l)) +
         "</span>";
}

// A site as a link that selects its node (Note [Counterpart highlighting]).
std::string siteLink(const std::optional<Site> &site, const SideView *side, const std::string &sideName) {
  if (!site) return "";
  std::string text = "<code>" + xmlEscape(siteText(*site)) + "</code>";
  if (!side) return text;
  for (size_t i = 0; i < side->nodes.size(); ++i)
    if (side->nodes[i].value->name == site->value)
      return "<a class=\"site\" data-target=\"" + viewNodeId(sideName, static_cast<int>(i)) + "\">" + text + "</a>";
  return text;
}

std::string outputRow(const OutputResult &o, size_t i, const DiffView *view) {
  return "<tr class=\"output-row\" data-verdict=\"" + std::string(verdictName(o.verdict)) + "\"><td><a class=\"site\" "
         "data-target=\"" + outputNodeId("ref", i) + "\">" + xmlEscape(o.name) + "</a></td><td>" +
         verdictSpan(o.verdict, o.level) + "</td><td>" + xmlEscape(o.reason) + "</td><td>" +
         siteLink(o.referenceSite, view ? &view->reference : nullptr, "ref") + "</td><td>" +
         siteLink(o.productionSite, view ? &view->production : nullptr, "prod") + "</td></tr>\n";
}

// Note [Outputs at scale]
// The outputs that are not proven come first, one row each; the proven ones
// are folded into one <details> (open when there are at most 8), so an equivalent
// 8-layer train step is a summary line, not a thousand rows.
std::string verdictTable(const CheckResult &r, const DiffView *view) {
  const std::string head = "<thead><tr><th>output</th><th>verdict</th><th>reason</th>"
                           "<th>reference diverges at</th><th>production diverges at</th></tr></thead><tbody>\n";
  std::string failing, proven;
  size_t provenCount = 0;
  for (size_t i = 0; i < r.outputs.size(); ++i) {
    const OutputResult &o = r.outputs[i];
    if (o.verdict == Verdict::Equivalent) proven += outputRow(o, i, view), ++provenCount;
    else failing += outputRow(o, i, view);
  }
  if (r.verdict == Verdict::Error)
    failing += "<tr class=\"output-row\" data-verdict=\"error\"><td>(all)</td><td>" + verdictSpan(r.verdict, r.level) +
               "</td><td>" + xmlEscape((r.errorLocation.empty() ? "" : r.errorLocation + ": ") + r.reason) +
               "</td><td></td><td></td></tr>\n";
  std::string html;
  if (!failing.empty()) html += "<table id=\"verdict-table\">" + head + failing + "</tbody></table>\n";
  if (provenCount)
    html += std::string("<details id=\"proven-outputs\"") + (provenCount <= 8 ? " open" : "") +
            "><summary>" + std::to_string(provenCount) + " proven output" + (provenCount == 1 ? "" : "s") +
            "</summary><table id=\"proven-table\">" + head + proven + "</tbody></table></details>\n";
  return html;
}

// Level rounded: each site, its line and bound (Note [Equivalence up to rounding]); "" for none.
std::string roundingsList(const CheckResult &r) {
  if (r.roundings.empty()) return "";
  std::string items;
  for (const Rounding &x : r.roundings) items += "<li>" + xmlEscape(describeRounding(x)) + "</li>";
  return "<p id=\"roundings-heading\"><b>Equal only up to rounding</b> at these sites (each bound is of the "
         "perturbation at its site, not of the outputs):</p><ul id=\"roundings\">" + items + "</ul>\n";
}

// Note [Report summary]
// What a reader needs first, above the drawings so that the divergence is in
// view without scrolling: the counts, then for a failing pair the outputs that
// failed (the first few), the first divergence and the first differing
// intermediate values with their numbers; for an equivalent pair one line
// saying so (no divergence heading).
std::string summarySection(const CheckResult &r, const DiffView *view) {
  std::string html = "<section id=\"summary\">";
  if (!r.outputs.empty()) html += "<p id=\"counts\"><b>" + xmlEscape(countsText(r)) + "</b></p>\n";
  if (r.verdict == Verdict::Equivalent) {
    html += "<p id=\"equivalent-summary\">Every output is proven equivalent" +
            std::string(r.level == Level::Bitwise ? ", bit for bit"
                        : r.level == Level::Real  ? " over the reals"
                        : r.level == Level::Rounded ? " over the reals up to rounding"
                                                    : "") +
            "; nothing diverges.</p>\n";
    return html + roundingsList(r) + "</section>\n";
  }
  const size_t kListed = 4;
  size_t listed = 0, failing = 0;
  std::string items;
  for (size_t i = 0; i < r.outputs.size(); ++i) {
    const OutputResult &o = r.outputs[i];
    if (o.verdict == Verdict::Equivalent) continue;
    if (++failing > kListed) continue;
    ++listed;
    std::string reason = shortened(o.reason, 160);
    items += "<li><a class=\"site\" data-target=\"" + outputNodeId("ref", i) + "\">" + xmlEscape(o.name) + "</a> " +
             verdictSpan(o.verdict, o.level) + " " + xmlEscape(reason) + "</li>";
  }
  if (!items.empty())
    html += "<ul id=\"failing-outputs\">" + items +
            (failing > listed ? "<li>and " + std::to_string(failing - listed) + " more (Outputs, below)</li>" : "") +
            "</ul>\n";
  html += roundingsList(r);  // why --require real left it unknown
  for (const OutputResult &o : r.outputs) {
    if (!o.referenceSite && !o.productionSite) continue;
    html += "<p id=\"first-divergence\"><b>First divergence</b> (output " + xmlEscape(o.name) + "): reference " +
            siteLink(o.referenceSite, view ? &view->reference : nullptr, "ref") + " &middot; production " +
            siteLink(o.productionSite, view ? &view->production : nullptr, "prod") + "</p>\n";
    break;
  }
  if (r.counterexample && r.counterexample->firstDifference) {
    const IntermediateDifference &d = *r.counterexample->firstDifference;
    auto side = [&](const Site &site, double value, const SideView *sv, const std::string &name) {
      if (!d.hasValues) return siteLink(site, sv, name);  // the types are the difference
      return siteLink(site, sv, name) + " <span class=\"mono\">" + indexText(d.index) + " = <b>" +
             xmlEscape(formatFloat(value)) + "</b></span>";
    };
    html += "<p id=\"first-difference\"><b>First differing intermediate</b> (on the counterexample's inputs): "
            "production " + side(d.production, d.productionValue, view ? &view->production : nullptr, "prod") +
            " &middot; closest reference " +
            side(d.reference, d.referenceValue, view ? &view->reference : nullptr, "ref") +
            (d.typeDifference.empty() ? "" : " (" + xmlEscape(d.typeDifference) + ")") + "</p>\n";
  }
  return html + "</section>\n";
}

std::string counterexampleSection(const Counterexample &c) {
  std::string html = "<section id=\"counterexample\"><h2>Counterexample</h2>\n<table>";
  html += "<tr><th>output</th><td>" + xmlEscape(c.output) + "</td></tr>";
  if (!c.index.empty()) {
    html += "<tr><th>index</th><td class=\"mono\">" + indexText(c.index) + "</td></tr>";
    html += "<tr><th>reference value</th><td class=\"mono\">" + xmlEscape(formatFloat(c.referenceValue)) + "</td></tr>";
    html += "<tr><th>production value</th><td class=\"mono\">" + xmlEscape(formatFloat(c.productionValue)) +
            "</td></tr>";
  }
  if (c.firstDifference)
    html += "<tr><th>localized</th><td class=\"mono\">" + xmlEscape(firstDifferenceText(*c.firstDifference)) +
            "</td></tr>";
  if (!c.shrunk.empty()) html += "<tr><th>input</th><td>" + xmlEscape(c.shrunk) + "</td></tr>";
  if (!c.note.empty()) html += "<tr><th>note</th><td>" + xmlEscape(c.note) + "</td></tr>";
  html += "</table>\n";
  if (!c.inputs.empty()) {
    html += "<h3>Inputs</h3><table><tr><th>input</th><th>type</th><th>values</th></tr>";
    for (const TensorValues &t : c.inputs)
      html += "<tr><td>" + xmlEscape(t.name) + "</td><td class=\"mono\">" + xmlEscape(t.type) +
              "</td><td class=\"mono\">" + xmlEscape(inputValuesText(t, 64)) + "</td></tr>";
    html += "</table>\n";
  }
  return html + "</section>\n";
}

// Both directions of every pairing, by element id.
std::string pairsJson(const DiffView &view) {
  nlohmann::json pairs = nlohmann::json::object();
  auto add = [&](const SideView &from, const std::string &fromName, const SideView &to, const std::string &toName) {
    for (size_t i = 0; i < from.nodes.size(); ++i) {
      const Value *partner = from.nodes[i].partner;
      if (!partner) continue;
      auto it = to.indexOf.find(partner);
      if (it != to.indexOf.end())
        pairs[viewNodeId(fromName, static_cast<int>(i))] = viewNodeId(toName, it->second);
    }
    for (size_t o = 0; o < from.outputNodes.size(); ++o) pairs[outputNodeId(fromName, o)] = outputNodeId(toName, o);
  };
  add(view.reference, "ref", view.production, "prod");
  add(view.production, "prod", view.reference, "ref");
  return scriptSafe(pairs.dump());
}

// Note [Drawing budget]
// The report is drawn after the verdict, and its drawings share one time
// budget (HtmlOptions::dotTimeoutSeconds): dot is superlinear on big graphs,
// and a page must not take longer than the decision it shows. Once a drawing
// fails or the budget is spent, the rest are tables, and the page says which
// of those happened (not "install Graphviz" when it is installed).
struct Drawing {
  const HtmlOptions &options;
  std::chrono::steady_clock::time_point deadline;
  std::string problem;  // why a drawing is missing; empty: all drawn

  explicit Drawing(const HtmlOptions &o)
      : options(o), deadline(std::chrono::steady_clock::now() +
                             std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                 std::chrono::duration<double>(o.dotTimeoutSeconds))) {}

  double secondsLeft() const {
    return std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
  }

  std::string noticeHtml() const {
    std::string html = xmlEscape(problem) + ": the graphs are shown as tables.";
    if (options.dotPath.empty()) html += " Install Debian's <code>graphviz</code> for drawings.";
    return html;
  }
};

// What one side's collapsed view draws: its visible nodes, its folded groups
// and the members those carry (Note [Folded layers]); empty: everything.
struct SideShown {
  std::vector<bool> visible;
  Folding folding;
  std::vector<bool> members;
  std::vector<bool> described() const {  // the nodes in the side panel's data
    std::vector<bool> out = visible;
    for (size_t i = 0; i < members.size(); ++i)
      if (members[i]) out[i] = true;
    return out;
  }
};

std::string drawSide(const SideView &side, const std::string &sideName, const std::vector<OutputResult> &outputs,
                     const SideShown &shown, const std::string &prefix, Drawing &drawing) {
  const std::vector<bool> &visible = shown.visible;
  const Folding *folding = shown.folding.groups.empty() ? nullptr : &shown.folding;
  auto fallback = [&] {
    return prefix.empty() ? sideToTable(side, sideName, outputs, visible, folding, shown.members) : "";
  };
  if (!drawing.problem.empty()) return fallback();
  double left = drawing.secondsLeft();
  char budget[32];
  std::snprintf(budget, sizeof budget, "%g", drawing.options.dotTimeoutSeconds);
  if (left <= 0.05) {
    drawing.problem = "Graphviz's dot did not finish the drawings within the report's " + std::string(budget) + " s";
    return fallback();
  }
  SvgResult svg = layoutWithDot(sideToDot(side, sideName, outputs, visible, prefix, folding), drawing.options.dotPath, left);
  if (svg.svg) return *svg.svg;
  drawing.problem = svg.error;
  if (drawing.secondsLeft() <= 0.05)
    drawing.problem = "Graphviz's dot did not finish drawing the " + std::string(sideName == "ref" ? "reference" : "production") +
                      " graph (" + std::to_string(side.nodes.size()) + " nodes) within the report's " + budget + " s";
  return fallback();
}

std::vector<int> nodesNamed(const SideView &side, const std::string &value) {
  std::vector<int> out;
  for (size_t i = 0; i < side.nodes.size(); ++i)
    if (side.nodes[i].value->name == value) out.push_back(static_cast<int>(i));
  return out;
}

// Each drawn node's details (Note [Side panel]); the sites of the first
// differing intermediate carry its numbers.
std::string panelJson(const CheckResult &r, const DiffView &view, const std::vector<bool> &refVisible,
                      const std::vector<bool> &prodVisible) {
  nlohmann::json nodes = nodesJson(view.reference, "ref", refVisible);
  nodes.update(nodesJson(view.production, "prod", prodVisible));
  if (r.counterexample && r.counterexample->firstDifference) {
    const IntermediateDifference &d = *r.counterexample->firstDifference;
    auto mark = [&](const SideView &side, const std::string &sideName, const Site &site, double mine, double other) {
      for (int i : nodesNamed(side, site.value)) {
        std::string id = viewNodeId(sideName, i);
        if (!nodes.contains(id)) continue;
        nodes[id]["first_difference"] = "first differing intermediate: " + indexText(d.index) + " = " +
                                        formatFloat(mine) + " here, " + formatFloat(other) + " on the other side";
      }
    };
    mark(view.reference, "ref", d.reference, d.referenceValue, d.productionValue);
    mark(view.production, "prod", d.production, d.productionValue, d.referenceValue);
  }
  return scriptSafe(nodes.dump());
}

struct GraphsHtml {
  std::string html, nodes, groups = "{}";
};

// The nodes a side's folding keeps expanded: the first differing value and
// the first divergence that the summary links to, which the page centres on.
std::vector<int> keptNodes(const CheckResult &r, const SideView &side, bool reference, std::vector<int> keep) {
  for (const OutputResult &o : r.outputs) {
    const std::optional<Site> &site = reference ? o.referenceSite : o.productionSite;
    if (!o.referenceSite && !o.productionSite) continue;
    if (site)
      for (int i : nodesNamed(side, site->value)) keep.push_back(i);
    break;
  }
  return keep;
}

// Note [Drawing at scale]
// An equivalent pair above `collapseAbove` nodes is not drawn: there is no
// divergence to show, and its drawing is what made a report slower than its
// decision. A failing one is drawn collapsed (Note [Collapsed view]) in panes
// with pan, zoom, fit and search (Note [Pan and zoom]), each centred on its
// divergence, with a side panel for the selected node (Note [Side panel]).
GraphsHtml graphsSection(const CheckResult &r, const DiffView &view, const HtmlOptions &options) {
  size_t biggest = std::max(view.reference.nodes.size(), view.production.nodes.size());
  bool collapse = biggest > options.collapseAbove;
  if (collapse && r.verdict == Verdict::Equivalent)
    return {"<section id=\"graphs\"><p class=\"notice\" id=\"not-drawn\">Every output is proven, so the graphs (" +
                std::to_string(view.reference.nodes.size()) + " and " + std::to_string(view.production.nodes.size()) +
                " nodes) are not drawn; <code>torchtv show</code> prints them.</p></section>\n",
            "{}"};
  std::string html = "<section id=\"graphs\">\n<div id=\"tv-toolbar\">"
                     "<input id=\"tv-search\" type=\"search\" placeholder=\"search nodes: op, %name, constant, file:line\" "
                     "aria-label=\"search nodes\"> <span id=\"tv-search-count\"></span> "
                     "<button id=\"tv-fit\" title=\"fit both drawings\">Fit</button>"
                     "<button id=\"tv-zoom-in\" title=\"zoom in\">+</button>"
                     "<button id=\"tv-zoom-out\" title=\"zoom out\">&minus;</button>"
                     "<button id=\"tv-centre\" title=\"centre the divergence\">Divergence</button>"
                     "<span class=\"legend\">"
                     "<span><i style=\"background:#e8f5e9\"></i>matched</span>"
                     "<span><i style=\"background:#fff3e0\"></i>residual</span>"
                     "<span><i style=\"background:#ffcdd2\"></i>divergence</span>"
                     "<span><i style=\"border:3px solid #6a1b9a\"></i>first differing value</span>"
                     "<span><i style=\"background:#e3f2fd\"></i>input</span>"
                     "<span><i style=\"background:#f5f5f5\"></i>dead</span>"
                     "<span><i style=\"background:#eceff1; box-shadow: 2px -2px 0 #90a4ae\"></i>repeat (click: expand)</span>"
                     "<span>drag: pan &middot; wheel: zoom &middot; click: counterpart</span></span></div>\n";
  SideShown refShown, prodShown;
  nlohmann::json groups = nlohmann::json::object();
  if (collapse) {
    std::vector<int> refFirst, prodFirst;
    if (r.counterexample && r.counterexample->firstDifference) {
      refFirst = nodesNamed(view.reference, r.counterexample->firstDifference->reference.value);
      prodFirst = nodesNamed(view.production, r.counterexample->firstDifference->production.value);
    }
    refShown.visible = neighbourhood(view.reference, r.outputs, options.neighbourhoodRadius, 120, refFirst);
    prodShown.visible = neighbourhood(view.production, r.outputs, options.neighbourhoodRadius, 120, prodFirst);
    refShown.folding = foldLayers(view.reference, keptNodes(r, view.reference, true, refFirst), refShown.visible);
    prodShown.folding = foldLayers(view.production, keptNodes(r, view.production, false, prodFirst), prodShown.visible);
    groups = groupsJson(view.reference, "ref", refShown.folding, options.foldedNodeBudget, refShown.members);
    groups.update(groupsJson(view.production, "prod", prodShown.folding, options.foldedNodeBudget, prodShown.members));
  }
  Drawing drawing(options);
  std::string ref = drawSide(view.reference, "ref", r.outputs, refShown, "", drawing);
  std::string prod = drawSide(view.production, "prod", r.outputs, prodShown, "", drawing);
  // The reference may be drawn and the production not: both become tables, so that they compare.
  if (!drawing.problem.empty() && ref.rfind("<table", 0) != 0)
    ref = sideToTable(view.reference, "ref", r.outputs, refShown.visible,
                      refShown.folding.groups.empty() ? nullptr : &refShown.folding, refShown.members);
  if (collapse)
    html += "<p class=\"notice\" id=\"collapsed-notice\">Large graphs: showing the cone of the failing outputs "
            "around the divergence (" + std::to_string(options.neighbourhoodRadius) +
            " edges around it); the rest is folded" +
            (groups.empty() ? std::string(".") : ", each repetition of a repeated part (a layer) into one box: "
                                                 "click a box to expand it.") + "</p>\n";
  if (!drawing.problem.empty())
    html += "<p class=\"notice\" id=\"no-graphviz\">" + drawing.noticeHtml() + "</p>\n";
  html += "<div class=\"sides\"><div class=\"side\" id=\"side-reference\"><h3>reference</h3><div class=\"tv-pane\">\n" +
          ref + "</div></div>\n<div class=\"side\" id=\"side-production\"><h3>production</h3><div class=\"tv-pane\">\n" +
          prod + "</div></div>\n<aside id=\"tv-panel\"><h3>Selected node</h3><div id=\"tv-panel-body\">"
          "Click a node: its op, type, constants (eps, dims, ...) and counterpart.</div>"
          "<p id=\"tv-selection\"></p></aside></div>\n";
  if (collapse && drawing.problem.empty() && biggest <= options.fullGraphLimit) {
    std::string fullRef = drawSide(view.reference, "ref", r.outputs, SideShown{}, "full-", drawing);
    std::string fullProd = drawSide(view.production, "prod", r.outputs, SideShown{}, "full-", drawing);
    if (drawing.problem.empty())
      html += "<details id=\"full-graphs\"><summary>Full graphs</summary><div class=\"sides\"><div class=\"side\">" +
              fullRef + "</div><div class=\"side\">" + fullProd + "</div></div></details>\n";
  }
  return {html + "</section>\n", panelJson(r, view, refShown.described(), prodShown.described()),
          scriptSafe(groups.dump())};
}

}  // namespace

std::string renderHtml(const CheckResult &r, const ReportContext &ctx, const HtmlOptions &options) {
  std::optional<DiffView> view;
  if (ctx.reference && ctx.production && r.verdict != Verdict::Error)
    view = buildDiffView(r, *ctx.reference, *ctx.production);
  std::string verdict = verdictWithLevel(r.verdict, r.level);
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                     "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                     "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
                     "<title>torchtv: " + xmlEscape(verdict) + "</title>\n<style>" + html::kStyle + "</style></head>\n<body>\n";
  std::string reason = shortened(r.reason, 400);
  html += "<header class=\"v-" + std::string(verdictName(r.verdict)) + "\"><h1>torchtv: " + verdictSpan(r.verdict, r.level) +
          "</h1>\n<p id=\"reason\" title=\"" + xmlEscape(r.reason) + "\">" + xmlEscape(reason) + "</p>\n";
  html += "<p class=\"files\">reference: <code>" + xmlEscape(ctx.referencePath) + "</code> (" + std::to_string(r.stats.referenceNodes) +
          " nodes) &middot; production: <code>" + xmlEscape(ctx.productionPath) + "</code> (" +
          std::to_string(r.stats.productionNodes) + " nodes) &middot; torchtv " + xmlEscape(ctx.version) + "</p></header>\n<main>\n";
  html += summarySection(r, view ? &*view : nullptr);
  GraphsHtml graphs{"", "{}"};
  if (view) graphs = graphsSection(r, *view, options);
  html += graphs.html;
  html += "<section id=\"verdicts\"><h2>Outputs</h2>\n" + verdictTable(r, view ? &*view : nullptr) + "</section>\n";
  if (r.counterexample) html += counterexampleSection(*r.counterexample);
  if (!r.assumptions.empty()) {
    html += "<section id=\"assumptions\"><h2>Assumptions</h2><ul>";
    for (const std::string &a : r.assumptions) html += "<li>" + xmlEscape(a) + "</li>";
    html += "</ul></section>\n";
  }
  html += "</main>\n<script type=\"application/json\" id=\"tv-pairs\">" + (view ? pairsJson(*view) : "{}") +
          "</script>\n<script type=\"application/json\" id=\"tv-nodes\">" + graphs.nodes +
          "</script>\n<script type=\"application/json\" id=\"tv-groups\">" + graphs.groups +
          "</script>\n<script>" + html::kScript + "</script>\n</body></html>\n";
  return html;
}

}  // namespace torchtv
