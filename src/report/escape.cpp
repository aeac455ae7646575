#include "src/report/escape.h"


namespace torchtv {

std::string xmlEscape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    case '\'': out += "&#39;"; break;
    default:
      // XML 1.0 forbids most control characters even as references.
      if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r') out += '?';
      else out += c;
    }
  }
  return out;
}

std::string scriptSafe(std::string_view json) {
  std::string out;
  out.reserve(json.size());
  for (size_t i = 0; i < json.size(); ++i) out += json[i] == '/' && i && json[i - 1] == '<' ? std::string("\\/") : std::string(1, json[i]);
  return out;
}

}  // namespace torchtv
