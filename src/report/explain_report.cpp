// `--explain`: each diverging region as a side-by-side text diff, reference on
// the left, production on the right, with source lines.
#include <algorithm>

#include "src/report/describe.h"
#include "src/report/diff_view.h"
#include "src/report/html_graph.h"
#include "src/report/report.h"

namespace torchtv {

namespace {

constexpr size_t kColumn = 64;

enum class Tone { Plain, Dim, Removed, Added, Divergence };

struct Cell {
  std::string text;
  Tone tone = Tone::Plain;
};

std::string paint(const std::string &text, Tone tone, ColorMode color) {
  if (color == ColorMode::Never || tone == Tone::Plain) return text;
  const char *code = tone == Tone::Dim ? "\033[2m" : tone == Tone::Removed ? "\033[31m"
                   : tone == Tone::Added ? "\033[32m" : "\033[1;33m";
  return code + text + "\033[0m";
}

// Pads or cuts to the column width (counting bytes: names and ops are ASCII).
std::string fit(const std::string &s) {
  if (s.size() <= kColumn) return s + std::string(kColumn - s.size(), ' ');
  return s.substr(0, kColumn - 3) + "...";
}

std::string operandList(const ViewNode &n, const SideView &side) {
  std::string out;
  for (int o : n.operands) out += (out.empty() ? "" : ", ") + ("%" + side.nodes[o].value->name);
  out = "(" + out + ")";
  // Constant arguments are often the whole difference (an epsilon, a dim).
  std::string attrs = attributesText(*n.node);
  return attrs.empty() ? out : out + " {" + attrs + "}";
}

// Two lines per node: the statement, then its type and source line.
std::vector<Cell> cellsOf(const SideView &side, int index, char mark, Tone tone) {
  const ViewNode &n = side.nodes[index];
  NodeLabel label = labelOf(n, side);
  std::string head = std::string(1, mark) + " " + label.title + (n.node ? operandList(n, side) : "");
  if (n.status == NodeStatus::Divergence) tone = Tone::Divergence, head[0] = '!';
  return {{head, tone}, {"    " + label.type + (label.loc.empty() ? "" : "  " + label.loc), tone}};
}

std::vector<Cell> column(const SideView &side, const Region &region, char mark, Tone tone) {
  std::vector<Cell> cells;
  for (int i : region.frontier) {
    auto c = cellsOf(side, i, '=', Tone::Dim);
    cells.insert(cells.end(), c.begin(), c.end());
  }
  for (int i : region.residual) {
    auto c = cellsOf(side, i, mark, tone);
    cells.insert(cells.end(), c.begin(), c.end());
  }
  return cells;
}

std::string sideBySide(const std::vector<Cell> &left, const std::vector<Cell> &right, ColorMode color) {
  std::string out;
  for (size_t i = 0; i < std::max(left.size(), right.size()); ++i) {
    Cell l = i < left.size() ? left[i] : Cell{};
    Cell r = i < right.size() ? right[i] : Cell{};
    out += "  " + paint(fit(l.text), l.tone, color) + " | " + paint(r.text, r.tone, color) + "\n";
  }
  return out;
}

}  // namespace

std::string renderExplain(const CheckResult &r, const ReportContext &ctx, ColorMode color) {
  std::string out = "\nexplain:";
  if (!ctx.reference || !ctx.production || r.verdict == Verdict::Error)
    return out + " no graphs to compare\n";
  DiffView view = buildDiffView(r, *ctx.reference, *ctx.production);
  bool any = false;
  for (size_t i = 0; i < r.outputs.size(); ++i) {
    const OutputResult &o = r.outputs[i];
    if (o.verdict == Verdict::Equivalent) continue;
    any = true;
    out += "\n" + paint("output " + o.name + ": " + verdictWithLevel(o.verdict, o.level), Tone::Divergence, color) +
           " - " + o.reason + "\n";
    Region left = residualRegion(view.reference, i), right = residualRegion(view.production, i);
    out += "  " + fit("reference: " + ctx.referencePath) + " | production: " + ctx.productionPath + "\n";
    out += "  " + std::string(kColumn, '-') + "-+-" + std::string(kColumn, '-') + "\n";
    if (left.residual.empty() && right.residual.empty()) {
      // Same computation, different types (or an output that is an input).
      auto l = cellsOf(view.reference, view.reference.outputNodes[i], '-', Tone::Removed);
      auto rr = cellsOf(view.production, view.production.outputNodes[i], '+', Tone::Added);
      out += sideBySide(l, rr, color);
    } else {
      out += sideBySide(column(view.reference, left, '-', Tone::Removed),
                        column(view.production, right, '+', Tone::Added), color);
    }
    if (r.counterexample && r.counterexample->output == o.name) out += "  " + counterexampleText(*r.counterexample);
  }
  if (!any) out += " every output is equivalent; nothing diverges\n";
  else out += "\n  legend: = matched value feeding the region, - reference only, + production only, ! first divergence\n";
  return out;
}

}  // namespace torchtv
