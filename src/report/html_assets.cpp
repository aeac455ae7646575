#include "src/report/html_assets.h"

namespace torchtv::html {

const char *const kStyle = R"CSS(
body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; margin: 0; color: #212121; background: #fafafa; }
header { padding: 14px 24px; border-bottom: 4px solid #9e9e9e; background: #fff; }
header h1 { margin: 0 0 4px 0; font-size: 22px; }
header p { margin: 2px 0; }
header.v-equivalent { border-color: #43a047; }
header.v-not_equivalent, header.v-error { border-color: #c62828; }
header.v-unknown { border-color: #f9a825; }
main { padding: 8px 24px 32px 24px; }
h2 { font-size: 17px; margin: 20px 0 8px 0; }
table { border-collapse: collapse; background: #fff; font-size: 13px; }
th, td { border: 1px solid #ddd; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #eceff1; }
code, .mono { font-family: "DejaVu Sans Mono", monospace; font-size: 12px; }
.verdict { font-weight: bold; padding: 1px 6px; border-radius: 3px; white-space: nowrap; }
.verdict.equivalent { background: #c8e6c9; }
.verdict.not_equivalent, .verdict.error { background: #ffcdd2; }
.verdict.unknown { background: #fff9c4; }
.sides { display: flex; gap: 16px; align-items: flex-start; }
.side { flex: 1 1 0; min-width: 0; background: #fff; border: 1px solid #ddd; padding: 6px; overflow: auto; max-height: 85vh; }
.side h3 { margin: 2px 0 6px 0; font-size: 15px; }
.legend span { display: inline-block; margin-right: 12px; font-size: 12px; }
.legend i { display: inline-block; width: 12px; height: 12px; margin-right: 4px; border: 1px solid #555; vertical-align: middle; }
g.node { cursor: pointer; }
g.node.tv-selected path, g.node.tv-selected polygon, g.node.tv-selected ellipse { stroke: #1565c0; stroke-width: 4px; }
g.node.tv-divergence path, g.node.tv-divergence polygon { stroke-width: 3px; }
tr.node { cursor: pointer; }
tr.tv-residual td { background: #fff3e0; }
tr.tv-divergence td { background: #ffcdd2; font-weight: bold; }
tr.tv-dead td { color: #9e9e9e; }
tr.tv-selected td { outline: 3px solid #1565c0; }
#tv-selection { min-height: 1.4em; font-size: 13px; color: #37474f; }
.notice { background: #fff8e1; border: 1px solid #ffe082; padding: 6px 10px; }
a.site { color: #1565c0; cursor: pointer; text-decoration: underline; }
details { margin-top: 12px; }
)CSS";

// Note [Counterpart highlighting]
// The page carries a map from each node's element id to its counterpart's on
// the other side (#tv-pairs). A click on a node (in a drawing or a table)
// highlights it and its counterpart; drawings of the full graphs use the same
// ids behind a "full-" prefix.
const char *const kScript = R"JS(
(function () {
  var pairs = JSON.parse(document.getElementById('tv-pairs').textContent);
  var status = document.getElementById('tv-selection');
  function clear() {
    var old = document.querySelectorAll('.tv-selected');
    for (var i = 0; i < old.length; ++i) old[i].classList.remove('tv-selected');
  }
  function titleOf(el) {
    var text = el.getAttribute('data-label') || (el.querySelector('text') ? el.querySelector('text').textContent : el.textContent);
    return text.trim();
  }
  function select(id) {
    clear();
    var base = id.replace(/^full-/, '');
    var prefix = id.substring(0, id.length - base.length);
    var me = document.getElementById(id);
    if (!me) return;
    me.classList.add('tv-selected');
    var other = pairs[base];
    if (!other) {
      status.textContent = titleOf(me) + ': no counterpart on the other side';
      return;
    }
    var el = document.getElementById(prefix + other) || document.getElementById(other);
    if (!el) {
      status.textContent = titleOf(me) + ' \u2194 ' + other + ' (folded; open the full graphs)';
      return;
    }
    el.classList.add('tv-selected');
    if (el.scrollIntoView) el.scrollIntoView({block: 'nearest', inline: 'nearest'});
    status.textContent = titleOf(me) + ' \u2194 ' + titleOf(el);
  }
  var nodes = document.querySelectorAll('.node[id]');
  for (var i = 0; i < nodes.length; ++i) {
    nodes[i].addEventListener('click', (function (id) {
      return function (ev) { ev.stopPropagation(); select(id); };
    })(nodes[i].id));
  }
  var links = document.querySelectorAll('[data-target]');
  for (var j = 0; j < links.length; ++j) {
    links[j].addEventListener('click', (function (id) {
      return function () { select(id); };
    })(links[j].getAttribute('data-target')));
  }
})();
)JS";

}  // namespace torchtv::html
