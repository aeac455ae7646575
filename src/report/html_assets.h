// The HTML report's style sheet and script, inlined into every page so that a
// report works offline and fetches nothing (its Content-Security-Policy forbids it).
#pragma once

namespace torchtv::html {
extern const char *const kStyle;
extern const char *const kScript;
}  // namespace torchtv::html
