// The HTML diff report: one self-contained page with both graphs side by side.
#include <chrono>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "src/report/describe.h"
#include "src/report/diff_view.h"
#include "src/report/escape.h"
#include "src/report/graphviz.h"
#include "src/report/html_assets.h"
#include "src/report/html_graph.h"
#include "src/report/report.h"

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

std::string verdictTable(const CheckResult &r, const DiffView *view) {
  std::string html = "<table id=\"verdict-table\"><thead><tr><th>output</th><th>verdict</th><th>reason</th>"
                     "<th>reference diverges at</th><th>production diverges at</th></tr></thead><tbody>\n";
  for (size_t i = 0; i < r.outputs.size(); ++i) {
    const OutputResult &o = r.outputs[i];
    html += "<tr class=\"output-row\" data-verdict=\"" + std::string(verdictName(o.verdict)) + "\"><td><a class=\"site\" "
            "data-target=\"" + outputNodeId("ref", i) + "\">" + xmlEscape(o.name) + "</a></td><td>" +
            verdictSpan(o.verdict, o.level) + "</td><td>" + xmlEscape(o.reason) + "</td><td>" +
            siteLink(o.referenceSite, view ? &view->reference : nullptr, "ref") + "</td><td>" +
            siteLink(o.productionSite, view ? &view->production : nullptr, "prod") + "</td></tr>\n";
  }
  if (r.verdict == Verdict::Error)
    html += "<tr class=\"output-row\" data-verdict=\"error\"><td>(all)</td><td>" + verdictSpan(r.verdict, r.level) +
            "</td><td>" + xmlEscape((r.errorLocation.empty() ? "" : r.errorLocation + ": ") + r.reason) +
            "</td><td></td><td></td></tr>\n";
  return html + "</tbody></table>\n";
}

std::string counterexampleSection(const Counterexample &c) {
  std::string html = "<section id=\"counterexample\"><h2>Counterexample</h2>\n<table>";
  html += "<tr><th>output</th><td>" + xmlEscape(c.output) + "</td></tr>";
  if (!c.index.empty()) {
    std::string index;
    for (size_t i = 0; i < c.index.size(); ++i) index += (i ? "," : "") + std::to_string(c.index[i]);
    html += "<tr><th>index</th><td class=\"mono\">[" + index + "]</td></tr>";
    html += "<tr><th>reference value</th><td class=\"mono\">" + xmlEscape(formatFloat(c.referenceValue)) + "</td></tr>";
    html += "<tr><th>production value</th><td class=\"mono\">" + xmlEscape(formatFloat(c.productionValue)) +
            "</td></tr>";
  }
  if (!c.note.empty()) html += "<tr><th>note</th><td>" + xmlEscape(c.note) + "</td></tr>";
  html += "</table>\n";
  if (!c.inputs.empty()) {
    html += "<h3>Inputs</h3><table><tr><th>input</th><th>type</th><th>values</th></tr>";
    for (const TensorValues &t : c.inputs)
      html += "<tr><td>" + xmlEscape(t.name) + "</td><td class=\"mono\">" + xmlEscape(t.type) +
              "</td><td class=\"mono\">" + xmlEscape(valuesText(t.values, 64)) + "</td></tr>";
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
  // "</" cannot end the script element early once escaped.
  std::string text = pairs.dump();
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) out += text[i] == '/' && i && text[i - 1] == '<' ? "\\/" : std::string(1, text[i]);
  return out;
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

std::string drawSide(const SideView &side, const std::string &sideName, const std::vector<OutputResult> &outputs,
                     const std::vector<bool> &visible, const std::string &prefix, Drawing &drawing) {
  auto fallback = [&] { return prefix.empty() ? sideToTable(side, sideName, outputs) : ""; };
  if (!drawing.problem.empty()) return fallback();
  double left = drawing.secondsLeft();
  char budget[32];
  std::snprintf(budget, sizeof budget, "%g", drawing.options.dotTimeoutSeconds);
  if (left <= 0.05) {
    drawing.problem = "Graphviz's dot did not finish the drawings within the report's " + std::string(budget) + " s";
    return fallback();
  }
  SvgResult svg = layoutWithDot(sideToDot(side, sideName, outputs, visible, prefix), drawing.options.dotPath, left);
  if (svg.svg) return *svg.svg;
  drawing.problem = svg.error;
  if (drawing.secondsLeft() <= 0.05)
    drawing.problem = "Graphviz's dot did not finish drawing the " + std::string(sideName == "ref" ? "reference" : "production") +
                      " graph (" + std::to_string(side.nodes.size()) + " nodes) within the report's " + budget + " s";
  return fallback();
}

std::string graphsSection(const CheckResult &r, const DiffView &view, const HtmlOptions &options) {
  std::string html = "<section id=\"graphs\"><h2>Graphs</h2>\n<div class=\"legend\">"
                     "<span><i style=\"background:#e8f5e9\"></i>matched (proven equal)</span>"
                     "<span><i style=\"background:#fff3e0\"></i>residual (no counterpart)</span>"
                     "<span><i style=\"background:#ffcdd2\"></i>first divergence</span>"
                     "<span><i style=\"background:#e3f2fd\"></i>input</span>"
                     "<span><i style=\"background:#f5f5f5\"></i>dead code</span>"
                     "<span>Click a node to highlight its counterpart.</span></div>\n"
                     "<p id=\"tv-selection\"></p>\n";
  bool collapse = view.reference.nodes.size() > options.collapseAbove ||
                  view.production.nodes.size() > options.collapseAbove;
  std::vector<bool> refVisible, prodVisible;
  if (collapse) {
    refVisible = neighbourhood(view.reference, options.neighbourhoodRadius);
    prodVisible = neighbourhood(view.production, options.neighbourhoodRadius);
    html += "<p class=\"notice\" id=\"collapsed-notice\">Large graphs: showing the neighbourhood of the divergence "
            "(" + std::to_string(options.neighbourhoodRadius) + " edges around it); matched regions are folded.</p>\n";
  }
  Drawing drawing(options);
  std::string ref = drawSide(view.reference, "ref", r.outputs, refVisible, "", drawing);
  std::string prod = drawSide(view.production, "prod", r.outputs, prodVisible, "", drawing);
  // The reference may be drawn and the production not: both become tables, so that they compare.
  if (!drawing.problem.empty() && ref.rfind("<table", 0) != 0) ref = sideToTable(view.reference, "ref", r.outputs);
  if (!drawing.problem.empty())
    html += "<p class=\"notice\" id=\"no-graphviz\">" + drawing.noticeHtml() + "</p>\n";
  html += "<div class=\"sides\"><div class=\"side\" id=\"side-reference\"><h3>reference</h3>\n" + ref +
          "</div>\n<div class=\"side\" id=\"side-production\"><h3>production</h3>\n" + prod + "</div></div>\n";
  size_t biggest = std::max(view.reference.nodes.size(), view.production.nodes.size());
  if (collapse && drawing.problem.empty() && biggest <= options.fullGraphLimit) {
    std::string fullRef = drawSide(view.reference, "ref", r.outputs, {}, "full-", drawing);
    std::string fullProd = drawSide(view.production, "prod", r.outputs, {}, "full-", drawing);
    if (drawing.problem.empty())
      html += "<details id=\"full-graphs\"><summary>Full graphs</summary><div class=\"sides\"><div class=\"side\">" +
              fullRef + "</div><div class=\"side\">" + fullProd + "</div></div></details>\n";
  }
  return html + "</section>\n";
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
  html += "<header class=\"v-" + std::string(verdictName(r.verdict)) + "\"><h1>torchtv: " + verdictSpan(r.verdict, r.level) +
          "</h1>\n<p id=\"reason\">" + xmlEscape(r.reason) + "</p>\n";
  html += "<p>reference: <code>" + xmlEscape(ctx.referencePath) + "</code> (" + std::to_string(r.stats.referenceNodes) +
          " nodes) &middot; production: <code>" + xmlEscape(ctx.productionPath) + "</code> (" +
          std::to_string(r.stats.productionNodes) + " nodes) &middot; torchtv " + xmlEscape(ctx.version) + "</p></header>\n<main>\n";
  html += "<section id=\"verdicts\"><h2>Outputs</h2>\n" + verdictTable(r, view ? &*view : nullptr) + "</section>\n";
  for (const OutputResult &o : r.outputs) {
    if (!o.referenceSite && !o.productionSite) continue;
    html += "<section id=\"first-divergence\"><h2>First divergence (output " + xmlEscape(o.name) + ")</h2>\n<p>reference: " +
            siteLink(o.referenceSite, view ? &view->reference : nullptr, "ref") + "<br>production: " +
            siteLink(o.productionSite, view ? &view->production : nullptr, "prod") + "</p></section>\n";
    break;
  }
  if (r.counterexample) html += counterexampleSection(*r.counterexample);
  if (!r.assumptions.empty()) {
    html += "<section id=\"assumptions\"><h2>Assumptions</h2><ul>";
    for (const std::string &a : r.assumptions) html += "<li>" + xmlEscape(a) + "</li>";
    html += "</ul></section>\n";
  }
  if (view) html += graphsSection(r, *view, options);
  html += "</main>\n<script type=\"application/json\" id=\"tv-pairs\">" + (view ? pairsJson(*view) : "{}") +
          "</script>\n<script>" + html::kScript + "</script>\n</body></html>\n";
  return html;
}

}  // namespace torchtv
