#include "src/cli/ci_manifest.h"

#include <cstdint>
#include <filesystem>
#include <set>
#include <sstream>

#include <toml.hpp>

#include "ir/limits.h"
#include "ir/text_format.h"

namespace torchtv::cli {

namespace {

namespace fs = std::filesystem;

const std::set<std::string> kPairKeys = {"name",    "reference", "production", "graphs",
                                         "pair",    "require",   "timeout",    "args", "report", "assume",
                                         "untrusted", "expect", "why"};
const std::set<std::string> kDefaultKeys = {"require", "timeout", "report", "untrusted"};
const double kMaxTimeoutSeconds = 7 * 24 * 3600;
const char *kPairKeyList =
    "name, reference, production, graphs, pair, require, timeout, args, report, assume, untrusted, expect, why";

SourcePos posOf(const std::string &path, const toml::value &v) {
  toml::source_location loc = v.location();
  return SourcePos{path, static_cast<int>(loc.line()), static_cast<int>(loc.column())};
}

struct Reader {
  std::string path;
  fs::path dir;

  [[noreturn]] void fail(const toml::value &at, const std::string &entry, const std::string &message) const {
    throw InputError(posOf(path, at), (entry.empty() ? "" : "pair \"" + entry + "\": ") + message);
  }

  std::string string(const toml::value &v, const std::string &entry, const std::string &key) const {
    if (!v.is_string()) fail(v, entry, "\"" + key + "\" must be a string");
    return v.as_string().str;
  }

  bool boolean(const toml::value &v, const std::string &entry, const std::string &key) const {
    if (!v.is_boolean()) fail(v, entry, "\"" + key + "\" must be true or false");
    return v.as_boolean();
  }

  // Note [Manifest timeouts]
  // The runner turns the seconds into integer milliseconds (subprocess.cpp):
  // nan, inf (TOML has both) or a huge number would overflow that cast.
  double timeout(const toml::value &v, const std::string &entry) const {
    double t = v.is_integer() ? static_cast<double>(v.as_integer()) : v.is_floating() ? v.as_floating() : -1;
    if (!(t > 0) || t > kMaxTimeoutSeconds)
      fail(v, entry, "\"timeout\" must be a positive number of seconds, at most 604800 (a week)");
    return t;
  }

  std::string level(const toml::value &v, const std::string &entry) const {
    std::string s = string(v, entry, "require");
    if (s != "rounded" && s != "real" && s != "bitwise")
      fail(v, entry, "\"require\" must be \"rounded\", \"real\" or \"bitwise\", not \"" + s + "\"");
    return s;
  }

  ReportWhen reportWhen(const toml::value &v, const std::string &entry) const {
    std::string s = string(v, entry, "report");
    if (s == "always") return ReportWhen::Always;
    if (s == "failures") return ReportWhen::Failures;
    if (s == "never") return ReportWhen::Never;
    fail(v, entry, "\"report\" must be \"always\", \"failures\" or \"never\", not \"" + s + "\"");
    return ReportWhen::Failures;
  }

  // Note [Expected verdicts]: "unknown" or "not_equivalent"; "equivalent" accepts nothing.
  Verdict expected(const toml::value &v, const std::string &entry) const {
    std::string s = string(v, entry, "expect");
    if (s == "unknown") return Verdict::Unknown;
    if (s == "not_equivalent") return Verdict::NotEquivalent;
    fail(v, entry, "\"expect\" must be \"unknown\" or \"not_equivalent\" (or a table of outputs to those), not \"" + s + "\"");
  }

  std::string file(const toml::value &v, const std::string &entry, const std::string &key) const {
    std::string given = string(v, entry, key);
    fs::path p = fs::path(given).is_absolute() ? fs::path(given) : (dir / given);
    p = p.lexically_normal();
    std::error_code ec;
    if (!fs::is_regular_file(p, ec)) fail(v, entry, key + " file \"" + p.string() + "\" does not exist");
    return p.string();
  }
};

// Note [Manifests must be UTF-8]
// TOML text is UTF-8. toml11 3.7 checks that itself, but its error path for a
// bad byte inside a string rewinds into a different buffer (a heap overflow
// fuzz_manifest found, tests/fuzz/manifest/regression-utf8-literal-string).
// So the whole text is checked here first, and toml11 never sees bad bytes.
void checkUtf8(const std::string &text, const std::string &path) {
  int line = 1;
  size_t lineStart = 0;
  for (size_t i = 0; i < text.size();) {
    auto b = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
    unsigned char c = b(i);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = n != 0 && i + n <= text.size();
    for (size_t k = 1; ok && k < n; ++k) ok = (b(i + k) & 0xC0) == 0x80;
    if (ok && n > 1) {
      uint32_t cp = c & (0x7F >> n);
      for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (b(i + k) & 0x3F);
      static const uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
      ok = cp >= kMin[n] && cp <= 0x10FFFF && (cp < 0xD800 || cp > 0xDFFF);
    }
    if (!ok)
      throw InputError(SourcePos{path, line, static_cast<int>(i - lineStart) + 1},
                       "not a valid TOML manifest: the text is not UTF-8");
    if (c == '\n') {
      ++line;
      lineStart = i + 1;
    }
    i += n;
  }
}

bool usableName(const std::string &name) {
  if (name.empty() || name[0] == '.') return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') return false;
  return true;
}

}  // namespace

std::optional<Verdict> expectedVerdict(const CiEntry &e, const std::string &output) {
  auto it = e.expect.find(output);
  if (it == e.expect.end()) it = e.expect.find("");
  if (it == e.expect.end()) return std::nullopt;
  return it->second;
}

Manifest readManifest(const std::string &path) { return readManifestText(readFile(path), path); }

Manifest readManifestText(const std::string &text, const std::string &path) {
  toml::value root;
  // Note [Input limits]: toml11 parses nested arrays and tables recursively.
  checkNestingDepth(text, NestingSyntax::Toml, path);
  checkUtf8(text, path);
  try {
    std::istringstream in(text);
    root = toml::parse(in, path);
  } catch (const toml::syntax_error &e) {
    std::string what = e.what();
    std::string first = what.substr(0, what.find('\n'));
    if (first.rfind("[error] ", 0) == 0) first = first.substr(8);
    SourcePos pos{path, static_cast<int>(e.location().line()), static_cast<int>(e.location().column())};
    throw InputError(pos, "not a valid TOML manifest: " + first);
  } catch (const std::runtime_error &e) {
    throw InputError(SourcePos{path}, std::string("cannot read manifest: ") + e.what());
  }
  Reader r{path, fs::path(path).parent_path()};
  Manifest m;
  m.path = path;
  CiEntry defaults;
  for (const auto &[key, value] : root.as_table()) {
    if (key != "pair" && key != "defaults")
      r.fail(value, "", "unknown top-level key \"" + key + "\" (expected [defaults] and [[pair]] tables)");
  }
  if (root.contains("defaults")) {
    const toml::value &d = root.at("defaults");
    if (!d.is_table()) r.fail(d, "", "\"defaults\" must be a table");
    for (const auto &[key, value] : d.as_table()) {
      if (!kDefaultKeys.count(key)) r.fail(value, "", "unknown key \"" + key + "\" in [defaults] (expected require, timeout, report, untrusted)");
      if (key == "require") defaults.require = r.level(value, "");
      if (key == "timeout") defaults.timeoutSeconds = r.timeout(value, "");
      if (key == "report") defaults.report = r.reportWhen(value, "");
      if (key == "untrusted") defaults.untrusted = r.boolean(value, "", "untrusted");
    }
  }
  if (!root.contains("pair") || !root.at("pair").is_array() || root.at("pair").as_array().empty())
    throw InputError(SourcePos{path}, "the manifest lists no pairs (add [[pair]] tables)");
  std::set<std::string> names;
  size_t index = 0;
  for (const toml::value &p : root.at("pair").as_array()) {
    ++index;
    if (!p.is_table()) r.fail(p, "", "pair " + std::to_string(index) + " is not a table");
    CiEntry e = defaults;
    e.pos = posOf(path, p);
    if (!p.contains("name")) r.fail(p, "#" + std::to_string(index), "has no \"name\"");
    e.name = r.string(p.at("name"), "#" + std::to_string(index), "name");
    if (!usableName(e.name))
      r.fail(p.at("name"), e.name, "a name may only hold letters, digits, '-', '_' and '.' (it names report files)");
    if (!names.insert(e.name).second) r.fail(p.at("name"), e.name, "duplicate name (names must be unique)");
    for (const auto &[key, value] : p.as_table())
      if (!kPairKeys.count(key)) r.fail(value, e.name, "unknown key \"" + key + "\" (expected " + kPairKeyList + ")");
    bool files = p.contains("reference") || p.contains("production");
    int kinds = int(files) + int(p.contains("graphs")) + int(p.contains("pair"));
    if (kinds != 1)
      r.fail(p, e.name, "give exactly one of: reference and production (two graph files), graphs (one file), "
                        "pair (a pair file)");
    if (files) {
      if (!p.contains("reference") || !p.contains("production"))
        r.fail(p, e.name, "needs both \"reference\" and \"production\"");
      e.kind = PairKind::GraphFiles;
      e.files = {r.file(p.at("reference"), e.name, "reference"), r.file(p.at("production"), e.name, "production")};
    } else if (p.contains("graphs")) {
      e.kind = PairKind::OneGraphFile;
      e.files = {r.file(p.at("graphs"), e.name, "graphs")};
    } else {
      e.kind = PairKind::PairFile;
      e.files = {r.file(p.at("pair"), e.name, "pair")};
    }
    if (p.contains("require")) e.require = r.level(p.at("require"), e.name);
    if (p.contains("timeout")) e.timeoutSeconds = r.timeout(p.at("timeout"), e.name);
    if (p.contains("report")) e.report = r.reportWhen(p.at("report"), e.name);
    if (p.contains("untrusted")) e.untrusted = r.boolean(p.at("untrusted"), e.name, "untrusted");
    if (p.contains("args")) {
      const toml::value &a = p.at("args");
      if (!a.is_array()) r.fail(a, e.name, "\"args\" must be a list of strings");
      for (const toml::value &arg : a.as_array()) e.args.push_back(r.string(arg, e.name, "args"));
    }
    if (p.contains("assume")) {  // Note [Declared input domains] in src/verify/input_domains.h
      const toml::value &a = p.at("assume");
      if (!a.is_array()) r.fail(a, e.name, "\"assume\" must be a list of strings such as \"target in [0, 5)\"");
      for (const toml::value &d : a.as_array()) e.args.insert(e.args.end(), {"--assume", r.string(d, e.name, "assume")});
    }
    if (p.contains("expect")) {
      const toml::value &x = p.at("expect");
      if (x.is_table()) {
        if (x.as_table().empty()) r.fail(x, e.name, "\"expect\" names no outputs");
        for (const auto &[output, verdict] : x.as_table()) {
          if (output.empty()) r.fail(verdict, e.name, "\"expect\" names an output \"\"");
          e.expect[output] = r.expected(verdict, e.name);
        }
      } else {
        e.expect[""] = r.expected(x, e.name);
      }
    }
    if (p.contains("why")) {
      if (!p.contains("expect")) r.fail(p.at("why"), e.name, "\"why\" explains an \"expect\", and there is none");
      e.why = r.string(p.at("why"), e.name, "why");
    }
    m.entries.push_back(std::move(e));
  }
  return m;
}

}  // namespace torchtv::cli
