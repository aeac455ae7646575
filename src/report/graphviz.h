// Lays out a graph with Graphviz's `dot` program, run as a child process.
//
// Note [Graphviz as a program]
// We run `dot -Tsvg` rather than link libgvc: a layout that crashes or takes
// too long (dot is superlinear on big graphs) must not take torchtv down, and a
// machine without Graphviz still gets a report (tables instead of drawings).
// The DOT goes in on stdin, the SVG comes back on stdout, under a time limit.
#pragma once

#include <optional>
#include <string>

namespace torchtv {

struct SvgResult {
  std::optional<std::string> svg;  // the <svg> element, prolog stripped
  std::string error;               // why there is none
};

SvgResult layoutWithDot(const std::string &dot, const std::string &dotPath, double timeoutSeconds);

}  // namespace torchtv
