#include "src/report/describe.h"

#include <cctype>

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
  return "%" + s.value + " = " + s.op + (s.loc.empty() ? "" : " (" + s.loc + ")");
}

std::string attributesText(const Node &n, size_t maxChars, bool withNone) {
  std::string out;
  for (const auto &[name, attr] : n.attrs)
    if (withNone || !attr.isNone()) out += (out.empty() ? "" : ", ") + name + "=" + attr.str();
  if (maxChars && out.size() > maxChars) out = out.substr(0, maxChars - 3) + "...";
  return out;
}

std::string valuesText(const std::vector<double> &values, size_t maxValues) {
  std::string out = "[";
  for (size_t i = 0; i < values.size() && i < maxValues; ++i) out += (i ? ", " : "") + formatFloat(values[i]);
  if (values.size() > maxValues) out += ", ... (" + std::to_string(values.size() - maxValues) + " more)";
  return out + "]";
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
  if (!c.index.empty() && (!c.firstDifference || c.firstDifference->hasValues)) {
    out += " at index " + indexText(c.index) + ": reference " + formatFloat(c.referenceValue) + ", production " + formatFloat(c.productionValue);
  }
  if (!c.note.empty()) out += (c.index.empty() ? ": " : "; ") + c.note;
  out += "\n";
  if (c.firstDifference) out += "  " + firstDifferenceText(*c.firstDifference) + "\n";
  if (!c.shrunk.empty()) out += "  input " + c.shrunk + "\n";
  for (const TensorValues &t : c.inputs)
    out += "  input " + t.name + ": " + t.type + " = " + valuesText(t.values, maxValues) + "\n";
  return out;
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
