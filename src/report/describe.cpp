#include "src/report/describe.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>

#include "ir/attribute.h"

namespace torchtv {

std::string verdictWithLevel(Verdict v, Level l) {
  std::string s(verdictName(v));
  if (l != Level::None) s += " (" + std::string(levelName(l)) + ")";
  return s;
}

std::string countsText(const CheckResult &r) {
  size_t proven = 0, refuted = 0, unknown = 0;
  for (const OutputResult &o : r.outputs) {
    if (o.verdict == Verdict::Equivalent) ++proven;
    else if (o.verdict == Verdict::NotEquivalent) ++refuted;
    else ++unknown;
  }
  size_t n = r.outputs.size();
  return std::to_string(n) + (n == 1 ? " output: " : " outputs: ") + std::to_string(proven) + " proven, " +
         std::to_string(refuted) + " refuted, " + std::to_string(unknown) + " unknown";
}

std::string siteText(const Site &s) {
  // Note [Runs of a line] in src/verify/localize.h.
  std::string runs = s.runs > 1 ? "run " + std::to_string(s.run) + " of " + std::to_string(s.runs) + " of this line" : "";
  std::string where = s.loc + (!s.loc.empty() && !runs.empty() ? ", " : "") + runs;
  return "%" + s.value + " = " + s.op + (where.empty() ? "" : " (" + where + ")");
}

std::vector<CauseGroup> causeGroups(const CheckResult &r) {
  auto keyOf = [](const std::optional<Site> &s, const std::string &output) {
    if (!s) return "output " + output;
    return s->loc.empty() ? "%" + s->value : s->loc;
  };
  // The counterexample's evidence moves its output's cause, and its companions', to the first
  // differing intermediate (Note [One alert per cause]).
  std::optional<std::string> staticKey;
  const IntermediateDifference *evidence = nullptr;
  if (r.counterexample && r.counterexample->firstDifference && !r.counterexample->firstDifference->production.loc.empty() &&
      r.counterexample->firstDifference->production.op != "input") {
    for (const OutputResult &o : r.outputs)
      if (o.name == r.counterexample->output && o.verdict != Verdict::Equivalent) {
        staticKey = keyOf(o.productionSite, o.name);
        evidence = &*r.counterexample->firstDifference;
      }
  }
  std::vector<CauseGroup> groups;
  std::map<std::string, size_t> byKey;
  for (const OutputResult &o : r.outputs) {
    if (o.verdict == Verdict::Equivalent) continue;
    std::optional<Site> production = o.productionSite, reference = o.referenceSite;
    std::string key = keyOf(production, o.name);
    if (evidence && key == *staticKey) {
      production = evidence->production;
      reference = evidence->reference;
      key = keyOf(production, o.name);
    }
    auto [it, added] = byKey.emplace(key, groups.size());
    if (added) groups.push_back(CauseGroup{production, reference, {}, o.verdict});
    CauseGroup &g = groups[it->second];
    g.outputs.push_back(&o);
    if (severity(o.verdict) > severity(g.verdict)) g.verdict = o.verdict;
  }
  std::stable_partition(groups.begin(), groups.end(), [](const CauseGroup &g) {
    return std::any_of(g.outputs.begin(), g.outputs.end(),
                       [](const OutputResult *o) { return o->verdict == Verdict::NotEquivalent; });
  });
  return groups;
}

std::string shortened(const std::string &text, size_t maxChars) {
  if (text.size() <= maxChars) return text;
  size_t cut = maxChars < 3 ? 0 : maxChars - 3;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // a continuation byte
  return text.substr(0, cut) + "...";
}

std::vector<std::string> undecidedLines(const OutputResult &o) {
  std::vector<std::string> lines;
  if (!o.runs.empty()) lines.push_back("runs of the code: " + o.runs);
  if (!o.toDecide.empty()) lines.push_back("to decide it, try: " + o.toDecide);
  return lines;
}

std::string undecidedText(const OutputResult &o, const std::string &separator) {
  std::string text;
  for (const std::string &line : undecidedLines(o)) text += separator + line;
  return text;
}

std::string groupedOutputsText(const CauseGroup &g, size_t maxNamed) {
  std::string out = std::to_string(g.outputs.size()) + (g.outputs.size() == 1 ? " output: " : " outputs: ");
  for (size_t i = 0; i < g.outputs.size() && i < maxNamed; ++i)
    out += (i ? ", " : "") + g.outputs[i]->name + " (" + std::string(verdictName(g.outputs[i]->verdict)) + ")";
  if (g.outputs.size() > maxNamed) out += ", ... (" + std::to_string(g.outputs.size() - maxNamed) + " more)";
  return out;
}

std::string attributesText(const Node &n, size_t maxChars, bool withNone) {
  std::string out;
  for (const auto &[name, attr] : n.attrs)
    if (withNone || !attr.isNone()) out += (out.empty() ? "" : ", ") + name + "=" + attr.str();
  if (maxChars) out = shortened(out, maxChars);
  return out;
}

namespace {

// "f32[2,4,16]" -> {2, 4, 16}; empty for a scalar or a type without sizes.
std::vector<long long> shapeOf(const std::string &type) {
  std::vector<long long> dims;
  size_t open = type.find('['), close = type.rfind(']');
  if (open == std::string::npos || close == std::string::npos || close <= open + 1) return dims;
  std::string body = type.substr(open + 1, close - open - 1);
  for (size_t at = 0; at <= body.size();) {
    size_t comma = body.find(',', at);
    if (comma == std::string::npos) comma = body.size();
    try {
      dims.push_back(std::stoll(body.substr(at, comma - at)));
    } catch (const std::exception &) {
      return {};  // a symbolic size: no element positions to name
    }
    at = comma + 1;
  }
  return dims;
}

bool isIntegral(const std::string &type) {
  return type.rfind("bool", 0) == 0 || (!type.empty() && (type[0] == 'i' || type[0] == 'u'));
}

std::string elementText(double v, bool integral) {
  return integral && std::isfinite(v) ? std::to_string(static_cast<long long>(v)) : formatFloat(v);
}

// The row-major position `flat` as a multi-index of `shape`.
std::vector<long long> unflatten(size_t flat, const std::vector<long long> &shape) {
  std::vector<long long> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = shape[d] ? static_cast<long long>(flat % shape[d]) : 0;
    flat = shape[d] ? flat / shape[d] : flat;
  }
  return index;
}

}  // namespace

// Note [Counterexample inputs as text]
// A shrunk counterexample is mostly zeros (Note [Shrinking counterexamples]): a tensor larger
// than `maxValues` whose entries are mostly zero is printed as its non-zero entries with their
// indices ("3 of 128 non-zero: [0,1,5]=0.5, ..."), which is what a reader needs to rebuild it;
// integer and bool tensors print their values as integers.
std::string inputValuesText(const TensorValues &t, size_t maxValues) {
  const bool integral = isIntegral(t.type);
  std::vector<long long> shape = shapeOf(t.type);
  size_t count = 1;
  for (long long d : shape) count *= static_cast<size_t>(std::max(d, 0LL));
  std::vector<size_t> nonZero;
  for (size_t i = 0; i < t.values.size(); ++i)
    if (t.values[i] != 0 || std::signbit(t.values[i])) nonZero.push_back(i);
  if (t.values.size() <= maxValues || shape.empty() || count != t.values.size() || 2 * nonZero.size() > t.values.size()) {
    std::string out = "[";
    for (size_t i = 0; i < t.values.size() && i < maxValues; ++i) out += (i ? ", " : "") + elementText(t.values[i], integral);
    if (t.values.size() > maxValues) out += ", ... (" + std::to_string(t.values.size() - maxValues) + " more)";
    return out + "]";
  }
  std::string out = nonZero.empty() ? "all " + std::to_string(t.values.size()) + " entries zero"
                                    : std::to_string(nonZero.size()) + " of " + std::to_string(t.values.size()) +
                                          " entries non-zero: ";
  for (size_t k = 0; k < nonZero.size() && k < maxValues; ++k)
    out += (k ? ", " : "") + indexText(unflatten(nonZero[k], shape)) + "=" + elementText(t.values[nonZero[k]], integral);
  if (nonZero.size() > maxValues) out += ", ... (" + std::to_string(nonZero.size() - maxValues) + " more)";
  return out;
}

std::string indexText(const std::vector<long long> &index) {
  std::string out = "[";
  for (size_t i = 0; i < index.size(); ++i) out += (i ? "," : "") + std::to_string(index[i]);
  return out + "]";
}

std::string firstDifferenceText(const IntermediateDifference &d) {
  auto site = [](const Site &s) { return "%" + s.value + " = " + s.op + (s.loc.empty() ? "" : " at " + s.loc); };
  if (!d.hasValues)  // the types are the difference (Note [Localized type differences])
    return "first differing intermediate: production " + site(d.production) + " where reference " +
           site(d.reference) + " (" + d.typeDifference + ")";
  return "first differing intermediate: production " + site(d.production) + " is " + formatFloat(d.productionValue) +
         " at " + indexText(d.index) + " where reference " + site(d.reference) + " is " + formatFloat(d.referenceValue) +
         (d.typeDifference.empty() ? "" : " (" + d.typeDifference + ")");
}

std::string counterexampleText(const Counterexample &c, size_t maxValues) {
  std::string out = "counterexample: output " + c.output;
  // A 0-d output (a loss) has the empty index: its values are shown when they are the counterexample's
  // (they differ; a type difference has none).
  const bool scalarValues = c.index.empty() && !(c.referenceValue == c.productionValue);
  const bool values = (!c.index.empty() || scalarValues) && (!c.firstDifference || c.firstDifference->hasValues);
  if (values)
    out += (c.index.empty() ? ": reference " : " at index " + indexText(c.index) + ": reference ") +
           formatFloat(c.referenceValue) + ", production " + formatFloat(c.productionValue);
  if (!c.note.empty()) out += (values ? "; " : ": ") + c.note;
  out += "\n";
  if (c.firstDifference) out += "  " + firstDifferenceText(*c.firstDifference) + "\n";
  if (!c.shrunk.empty()) out += "  input " + c.shrunk + "\n";
  for (const TensorValues &t : c.inputs)
    out += "  input " + t.name + ": " + t.type + " = " + inputValuesText(t, maxValues) + "\n";
  return out;
}

std::string pairDisplayName(const ReportContext &ctx) {
  auto stem = [](const std::string &path) { return std::filesystem::path(path).stem().string(); };
  if (ctx.referencePath.empty()) return "check";
  if (ctx.productionPath.empty() || ctx.productionPath == ctx.referencePath) return stem(ctx.referencePath);
  return stem(ctx.referencePath) + " vs " + stem(ctx.productionPath);
}

FileLine parseFileLine(const std::string &loc) {
  FileLine out;
  out.file = loc;
  // Peel up to two trailing ":<digits>" parts (line, then col).
  int numbers[2] = {0, 0};
  int found = 0;
  while (found < 2) {
    size_t colon = out.file.rfind(':');
    if (colon == std::string::npos || colon + 1 == out.file.size()) break;
    std::string tail = out.file.substr(colon + 1);
    bool digits = tail.size() < 9;
    for (char c : tail) digits = digits && std::isdigit(static_cast<unsigned char>(c));
    if (!digits) break;
    numbers[found++] = std::stoi(tail);
    out.file.resize(colon);
  }
  if (found == 2) out.line = numbers[1], out.col = numbers[0];
  if (found == 1) out.line = numbers[0];
  return out;
}

}  // namespace torchtv
