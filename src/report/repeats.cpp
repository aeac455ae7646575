#include "src/report/repeats.h"

#include <algorithm>
#include <map>
#include <string>

namespace torchtv {

// Note [Repeated layers]
// A captured model records no module or loop iteration per node, but an
// N-layer model, unrolled in topological order, repeats the (op, source line)
// sequence of one layer N times; its backward repeats too (autograd gives
// backward nodes their forward's line), and a hand-written production step
// repeats its own layer. So a layer is found as a tandem repeat of those keys:
//  1. candidate periods are the most frequent gaps between consecutive
//     occurrences of one key (the layer's length dominates: every key that
//     occurs once per layer recurs at exactly that gap);
//  2. for each candidate p, one linear scan finds the maximal runs where
//     keys[i] == keys[i + p]; a run of length L >= p is a stretch of
//     L + p keys with period p, i.e. floor((L + p) / p) copies;
//  3. stretches are taken greedily, the most keys covered first (the smaller
//     period on ties, so 8 layers beat 4 double layers), each cut to its
//     longest part not inside one already taken.
// This is a structural repeat: "repeat k of N", not a module's name. A
// different op in one layer (a planted bug edits the graph, not the keys of
// the reference) breaks the run there, and the layers around it form
// separate, shorter repeats.
std::vector<Repeat> tandemRepeats(const std::vector<int> &keys, size_t minPeriod) {
  const size_t n = keys.size(), kCandidates = 24;
  minPeriod = std::max<size_t>(minPeriod, 1);
  std::map<int, size_t> last;
  std::map<size_t, size_t> gaps;
  for (size_t i = 0; i < n; ++i) {
    auto [it, fresh] = last.try_emplace(keys[i], i);
    if (!fresh) {
      if (i - it->second >= minPeriod) ++gaps[i - it->second];
      it->second = i;
    }
  }
  std::vector<std::pair<size_t, size_t>> periods(gaps.begin(), gaps.end());  // (period, frequency)
  std::sort(periods.begin(), periods.end(), [](auto &a, auto &b) { return a.second != b.second ? a.second > b.second : a.first < b.first; });
  if (periods.size() > kCandidates) periods.resize(kCandidates);

  struct Stretch {
    size_t start, end, period;  // keys[start, end) has period `period`
  };
  std::vector<Stretch> stretches;
  for (auto [p, frequency] : periods) {
    (void)frequency;
    for (size_t i = 0; i + p < n;) {
      if (keys[i] != keys[i + p]) {
        ++i;
        continue;
      }
      size_t a = i;
      while (i + p < n && keys[i] == keys[i + p]) ++i;
      if (i - a >= p) stretches.push_back({a, i + p, p});
    }
  }
  std::sort(stretches.begin(), stretches.end(), [](const Stretch &a, const Stretch &b) {
    size_t ca = (a.end - a.start) / a.period * a.period, cb = (b.end - b.start) / b.period * b.period;
    if (ca != cb) return ca > cb;
    if (a.period != b.period) return a.period < b.period;
    return a.start < b.start;
  });
  std::vector<Repeat> taken;
  for (const Stretch &s : stretches) {
    // The longest part of [start, end) that overlaps nothing taken.
    size_t bestStart = s.start, bestLength = 0, from = s.start;
    std::vector<Repeat> sorted = taken;
    std::sort(sorted.begin(), sorted.end(), [](const Repeat &a, const Repeat &b) { return a.start < b.start; });
    for (size_t k = 0; k <= sorted.size(); ++k) {
      size_t to = k < sorted.size() ? std::min(s.end, std::max(from, sorted[k].start)) : s.end;
      if (to > from && to - from > bestLength) bestStart = from, bestLength = to - from;
      if (k < sorted.size()) from = std::max(from, std::min(s.end, sorted[k].end()));
    }
    if (bestLength / s.period >= 2) taken.push_back({bestStart, s.period, bestLength / s.period});
  }
  std::sort(taken.begin(), taken.end(), [](const Repeat &a, const Repeat &b) { return a.start < b.start; });
  return taken;
}

std::vector<LayerGroup> layerGroups(const SideView &side, size_t minPeriod) {
  std::map<std::string, int> ids;
  std::vector<int> keys;
  int unique = -1;  // graph inputs: a key of their own each, so they never repeat
  for (const ViewNode &n : side.nodes) {
    if (!n.node) {
      keys.push_back(unique--);
      continue;
    }
    std::string key = n.node->op + (n.node->loc.known() ? "@" + n.node->loc.str() : "");
    keys.push_back(ids.try_emplace(key, static_cast<int>(ids.size())).first->second);
  }
  std::vector<LayerGroup> groups;
  for (const Repeat &r : tandemRepeats(keys, minPeriod))
    for (size_t k = 0; k < r.count; ++k)
      groups.push_back({static_cast<int>(r.start + k * r.period), static_cast<int>(r.period), static_cast<int>(k + 1),
                        static_cast<int>(r.count)});
  return groups;
}

}  // namespace torchtv
