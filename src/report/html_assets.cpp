#include "src/report/html_assets.h"

namespace torchtv::html {

const char *const kStyle = R"CSS(
body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; margin: 0; color: #212121; background: #fafafa; }
header { padding: 8px 20px; border-bottom: 4px solid #9e9e9e; background: #fff; }
header h1 { margin: 0 0 2px 0; font-size: 20px; }
header p { margin: 2px 0; font-size: 13px; }
#reason { max-height: 3.2em; overflow: hidden; }
header.v-equivalent { border-color: #43a047; }
header.v-not_equivalent, header.v-error { border-color: #c62828; }
header.v-unknown { border-color: #f9a825; }
main { padding: 4px 20px 32px 20px; }
h2 { font-size: 17px; margin: 18px 0 8px 0; }
#summary p, #summary ul { margin: 4px 0; font-size: 13px; }
#failing-outputs { padding-left: 20px; }
#failing-outputs li { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
#collapsed-notice { padding: 2px 8px; font-size: 12px; margin: 4px 0; }
table { border-collapse: collapse; background: #fff; font-size: 13px; }
th, td { border: 1px solid #ddd; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #eceff1; }
code, .mono { font-family: "DejaVu Sans Mono", monospace; font-size: 12px; }
.verdict { font-weight: bold; padding: 1px 6px; border-radius: 3px; white-space: nowrap; }
.verdict.equivalent { background: #c8e6c9; }
.verdict.not_equivalent, .verdict.error { background: #ffcdd2; }
.verdict.unknown { background: #fff9c4; }
#tv-toolbar { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; margin: 8px 0 6px 0; font-size: 12px; }
#tv-search { width: 320px; }
#tv-search-count { min-width: 5em; color: #37474f; }
.sides { display: flex; gap: 10px; align-items: stretch; }
.side { flex: 1 1 0; min-width: 0; background: #fff; border: 1px solid #ddd; padding: 4px; }
.side h3 { margin: 2px 0 4px 0; font-size: 14px; }
.tv-pane { height: 58vh; overflow: auto; position: relative; }
.tv-pane > svg { display: block; width: 100%; height: 100%; cursor: grab; user-select: none; }
.tv-pane.tv-dragging > svg { cursor: grabbing; }
#full-graphs .side { overflow: auto; max-height: 85vh; }
#tv-panel { flex: 0 0 270px; min-width: 0; background: #fff; border: 1px solid #ddd; padding: 4px 8px; font-size: 12px;
            max-height: calc(58vh + 30px); overflow: auto; }
#tv-panel h3, #tv-panel h4 { margin: 4px 0; font-size: 13px; }
#tv-panel table { font-size: 12px; }
#tv-panel .tv-differs td { background: #ffcdd2; font-weight: bold; }
.tv-first { background: #ffcdd2; padding: 3px 5px; margin: 4px 0; }
.legend span { display: inline-block; margin-right: 10px; font-size: 12px; }
.legend i { display: inline-block; width: 12px; height: 12px; margin-right: 4px; border: 1px solid #555; vertical-align: middle; }
g.node { cursor: pointer; }
g.node.tv-selected path, g.node.tv-selected polygon, g.node.tv-selected ellipse, g.node.tv-selected rect { stroke: #1565c0; stroke-width: 4px; }
g.node.tv-found path, g.node.tv-found polygon, g.node.tv-found ellipse, g.node.tv-found rect { stroke: #ff6f00; stroke-width: 5px; }
g.node.tv-divergence path, g.node.tv-divergence polygon, g.node.tv-divergence rect { stroke-width: 3px; }
g.node.tv-first-diff path, g.node.tv-first-diff polygon, g.node.tv-first-diff rect { stroke: #6a1b9a; stroke-width: 5px; stroke-dasharray: 8 3; }
g.node.tv-group { cursor: zoom-in; }
g.node.tv-group.tv-expanded { opacity: 0.3; }
.tv-expansion-bg { fill: #fff; stroke: #546e7a; stroke-width: 2px; stroke-dasharray: 6 3; }
.tv-expansion text { font-size: 11px; font-family: "DejaVu Sans", sans-serif; }
.tv-expansion .tv-fold { font-weight: bold; cursor: zoom-out; fill: #37474f; }
.tv-expansion-edge { stroke: #607d8b; stroke-width: 1px; }
.tv-expansion g.node rect { fill: #fff; stroke: #9e9e9e; stroke-width: 1px; }
.tv-expansion g.tv-group rect { fill: #eceff1; stroke: #546e7a; }
.tv-expansion g.tv-matched rect { fill: #e8f5e9; stroke: #43a047; }
.tv-expansion g.tv-residual rect { fill: #fff3e0; stroke: #ef6c00; }
.tv-expansion g.tv-divergence rect { fill: #ffcdd2; stroke: #c62828; }
.tv-expansion g.tv-dead rect { fill: #f5f5f5; stroke: #9e9e9e; stroke-dasharray: 4 2; }
tr.tv-group-row td { background: #eceff1; cursor: pointer; font-style: italic; }
tr.node { cursor: pointer; }
tr.tv-residual td { background: #fff3e0; }
tr.tv-divergence td { background: #ffcdd2; font-weight: bold; }
tr.tv-dead td { color: #9e9e9e; }
tr.tv-selected td { outline: 3px solid #1565c0; }
tr.tv-found td { outline: 3px solid #ff6f00; }
#tv-selection { min-height: 1.4em; font-size: 12px; color: #37474f; }
.notice { background: #fff8e1; border: 1px solid #ffe082; padding: 6px 10px; font-size: 13px; }
a.site { color: #1565c0; cursor: pointer; text-decoration: underline; }
details { margin-top: 12px; }
)CSS";

// Note [Counterpart highlighting]
// The page carries a map from each node's element id to its counterpart's on
// the other side (#tv-pairs). A click on a node (in a drawing or a table)
// highlights it and its counterpart; drawings of the full graphs use the same
// ids behind a "full-" prefix.
//
// Note [Pan and zoom]
// Each drawing sits in a fixed-size pane; the script drives the SVG's viewBox
// (kept at the pane's aspect ratio, so one scale maps user units to pixels):
// drag pans, the wheel zooms about the pointer, Fit shows the whole drawing.
// On load each pane is centred on its first differing value, else on its
// divergence (the whole drawing when it is legible at that size), and a click on a node or a link centres the node and
// its counterpart. No library: about a hundred lines do it, and the page stays
// self-contained and offline.
//
// Note [Side panel]
// #tv-nodes maps each drawn node's id to its title, type, source, status and
// constant arguments (in full: eps, dims, scalars); the panel shows the
// selected node's and its counterpart's, or for a divergence (which has no
// counterpart) the other side's divergence, with the differing constants
// marked, and the numbers of the first differing intermediate at its sites.
// Search matches the drawn nodes' text and these details.
//
// Note [Expanding a folded group]
// #tv-groups has each folded repeat's members and internal edges (Note
// [Folded layers]). A click on its box draws them over the box, in ranks
// (longest path from the group's inputs), with the same element ids as dot's
// nodes, so the side panel, counterparts and search work on them; clicking
// the header folds it again. Selecting a folded node (a link, a counterpart,
// a search match) expands its group first. A range box opens into a column
// of its repetitions' boxes, each expanded by a click in turn. In a table the
// box is a header row whose members' rows are hidden until it is clicked.
const char *const kScript = R"JS(
(function () {
  function json(id) { var el = document.getElementById(id); return el ? JSON.parse(el.textContent) : {}; }
  var pairs = json('tv-pairs'), info = json('tv-nodes'), groups = json('tv-groups'), groupOf = {}, rangeOf = {};
  for (var gid in groups) {
    (groups[gid].nodes || []).forEach(function (id) { groupOf[id] = gid; });
    (groups[gid].groups || []).forEach(function (id) { rangeOf[id] = gid; });
  }
  var status = document.getElementById('tv-selection');
  var panel = document.getElementById('tv-panel-body');
  function esc(s) { var d = document.createElement('div'); d.textContent = s == null ? '' : String(s); return d.innerHTML; }
  function clearClass(c) {
    var old = document.querySelectorAll('.' + c);
    for (var i = 0; i < old.length; ++i) old[i].classList.remove(c);
  }
  function titleOf(el) {
    var text = el.getAttribute('data-label') || (el.querySelector('text') ? el.querySelector('text').textContent : el.textContent);
    return text.trim();
  }

  // Pan and zoom (Note [Pan and zoom]).
  var panes = [];
  function size(p) { return { w: p.el.clientWidth || 1, h: p.el.clientHeight || 1 }; }
  function apply(p) {
    var z = size(p);
    p.svg.setAttribute('viewBox', p.x + ' ' + p.y + ' ' + z.w / p.s + ' ' + z.h / p.s);
  }
  function fitScale(p) { var z = size(p); return Math.min(z.w / p.g.w, z.h / p.g.h, 2); }
  function fit(p) {
    var z = size(p);
    p.s = fitScale(p);
    p.x = p.g.x - (z.w / p.s - p.g.w) / 2;
    p.y = p.g.y - (z.h / p.s - p.g.h) / 2;
    apply(p);
  }
  function toUser(p, cx, cy) {
    var r = p.svg.getBoundingClientRect();
    return { x: p.x + (cx - r.left) / p.s, y: p.y + (cy - r.top) / p.s };
  }
  function zoomAt(p, f, cx, cy) {
    var u = toUser(p, cx, cy), r = p.svg.getBoundingClientRect();
    p.s = Math.max(0.01, Math.min(8, p.s * f));
    p.x = u.x - (cx - r.left) / p.s;
    p.y = u.y - (cy - r.top) / p.s;
    apply(p);
  }
  function zoomMiddle(p, f) { var r = p.svg.getBoundingClientRect(); zoomAt(p, f, (r.left + r.right) / 2, (r.top + r.bottom) / 2); }
  function centreOn(p, el, s) {
    var b = el.getBoundingClientRect();
    var u = toUser(p, (b.left + b.right) / 2, (b.top + b.bottom) / 2);
    if (s) p.s = s;
    var z = size(p);
    p.x = u.x - z.w / (2 * p.s);
    p.y = u.y - z.h / (2 * p.s);
    apply(p);
  }
  function paneOf(el) {
    for (var i = 0; i < panes.length; ++i) if (panes[i].el.contains(el)) return panes[i];
    return null;
  }
  function bind(p) {
    var drag = null;
    p.svg.addEventListener('mousedown', function (e) {
      if (e.button !== 0 || (e.target.closest && e.target.closest('.node'))) return;
      drag = { x: e.clientX, y: e.clientY };
      p.el.classList.add('tv-dragging');
      e.preventDefault();
    });
    window.addEventListener('mousemove', function (e) {
      if (!drag) return;
      p.x -= (e.clientX - drag.x) / p.s;
      p.y -= (e.clientY - drag.y) / p.s;
      drag = { x: e.clientX, y: e.clientY };
      apply(p);
    });
    window.addEventListener('mouseup', function () { drag = null; p.el.classList.remove('tv-dragging'); });
    p.svg.addEventListener('wheel', function (e) {
      e.preventDefault();
      zoomAt(p, e.deltaY < 0 ? 1.2 : 1 / 1.2, e.clientX, e.clientY);
    }, { passive: false });
  }
  var paneEls = document.querySelectorAll('.tv-pane');
  for (var i = 0; i < paneEls.length; ++i) {
    var svg = paneEls[i].querySelector('svg');
    if (!svg || !svg.viewBox || !svg.viewBox.baseVal) continue;
    var vb = svg.viewBox.baseVal;
    svg.removeAttribute('width');
    svg.removeAttribute('height');
    var p = { el: paneEls[i], svg: svg, g: { x: vb.x, y: vb.y, w: vb.width || 1, h: vb.height || 1 }, x: 0, y: 0, s: 1 };
    panes.push(p);
    bind(p);
  }
  // A node in view: centred in its pane (at a legible scale), or scrolled to in a table.
  function reveal(el) {
    var p = paneOf(el);
    if (p) centreOn(p, el, p.s < 0.6 ? 1 : p.s);
    else if (el.scrollIntoView) el.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }
  // The first differing value (Note [Localized counterexample]) where it is drawn, else the
  // first structural divergence.
  for (var f in info) {
    var firstEl = info[f].first_difference ? document.getElementById(f) : null;
    if (firstEl) firstEl.classList.add('tv-first-diff');
  }
  function centreDivergences() {
    for (var i = 0; i < panes.length; ++i) {
      var p = panes[i], div = p.el.querySelector('.node.tv-first-diff') || p.el.querySelector('.node.tv-divergence');
      fit(p);
      if (div && fitScale(p) < 0.6) centreOn(p, div, 1);
    }
  }
  function each(f) { for (var i = 0; i < panes.length; ++i) f(panes[i]); }
  function on(id, ev, f) { var el = document.getElementById(id); if (el) el.addEventListener(ev, f); }
  on('tv-fit', 'click', function () { each(fit); });
  on('tv-zoom-in', 'click', function () { each(function (p) { zoomMiddle(p, 1.25); }); });
  on('tv-zoom-out', 'click', function () { each(function (p) { zoomMiddle(p, 0.8); }); });
  on('tv-centre', 'click', centreDivergences);
  window.addEventListener('resize', function () { each(apply); });

  // Folded repeats (Note [Expanding a folded group]).
  // In the namespace of `parent` (an element of dot's SVG): the page names no URL.
  function svgEl(tag, attrs, parent) {
    var e = document.createElementNS(parent.namespaceURI, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    parent.appendChild(e);
    return e;
  }
  function clip(s, n) { s = s || ''; return s.length > n ? s.substring(0, n - 1) + '\u2026' : s; }
  // A box's expansion: drawn over it, a header that folds it again.
  function overlay(gid, box, width, height, title) {
    var bb = box.getBBox();
    var g = svgEl('g', { id: gid + '-x', 'class': 'tv-expansion', transform: 'translate(' + bb.x + ',' + bb.y + ')' }, box.parentNode);
    svgEl('rect', { x: 0, y: 0, width: width, height: height, 'class': 'tv-expansion-bg' }, g);
    var head = svgEl('text', { x: 14, y: 20, 'class': 'tv-fold' }, g);
    head.textContent = '\u25BE ' + title + ': click here to fold';
    head.addEventListener('click', function (ev) {
      ev.stopPropagation();
      g.parentNode.removeChild(g);
      box.classList.remove('tv-expanded');
    });
    box.classList.add('tv-expanded');
    return g;
  }
  // A range: a column of its repetitions' boxes, each expanded by a click.
  function expandRange(gid, box, d) {
    var W = 230, H = 34, GY = 10, TOP = 30;
    var g = overlay(gid, box, W + 28, TOP + d.groups.length * (H + GY), d.label);
    d.groups.forEach(function (k, i) {
      var m = groups[k], y = TOP + i * (H + GY);
      var b = svgEl('g', { id: k, 'class': 'node tv-group' }, g);
      svgEl('rect', { x: 14, y: y, width: W, height: H, rx: 2 }, b);
      svgEl('text', { x: 20, y: y + 14 }, b).textContent = m.label;
      svgEl('text', { x: 20, y: y + 28 }, b).textContent = m.size + ' nodes (click to expand)';
      bindNode(b, k);
    });
    return g.firstChild;
  }
  // Expands group `gid`; returns the element to bring into view (null: it cannot be).
  function expandGroup(gid) {
    var box = document.getElementById(gid), d = groups[gid];
    if (!box && rangeOf[gid]) { expandGroup(rangeOf[gid]); box = document.getElementById(gid); }
    if (!box || !d) return null;
    if (box.tagName.toLowerCase() === 'tr') {
      var rows = document.querySelectorAll('tr[data-group="' + gid + '"]');
      for (var r = 0; r < rows.length; ++r) rows[r].hidden = false;
      box.classList.add('tv-expanded');
      return box;
    }
    var done = document.getElementById(gid + '-x');
    if (done) return done.firstChild;
    if (d.groups) return expandRange(gid, box, d);
    if (!d.nodes) {
      status.textContent = d.label + ': its ' + d.size + ' nodes are not in this page (too many folded nodes); torchtv show prints the graph';
      return null;
    }
    var n = d.nodes.length, rank = [], cols = [], pos = [], width = 0, i;
    var W = 210, H = 40, GX = 14, GY = 26, TOP = 30;
    for (i = 0; i < n; ++i) rank.push(0);
    for (i = 0; i < d.edges.length; ++i) rank[d.edges[i][1]] = Math.max(rank[d.edges[i][1]], rank[d.edges[i][0]] + 1);
    for (i = 0; i < n; ++i) {
      var c = cols[rank[i]] = (cols[rank[i]] || 0) + 1;
      pos.push({ x: GX + (c - 1) * (W + GX), y: TOP + rank[i] * (H + GY) });
      width = Math.max(width, c * (W + GX) + GX);
    }
    var g = overlay(gid, box, width, TOP + cols.length * (H + GY), d.label + ' (' + n + ' nodes)');
    for (i = 0; i < d.edges.length; ++i) {
      var a = pos[d.edges[i][0]], b = pos[d.edges[i][1]];
      svgEl('line', { x1: a.x + W / 2, y1: a.y + H, x2: b.x + W / 2, y2: b.y, 'class': 'tv-expansion-edge' }, g);
    }
    for (i = 0; i < n; ++i) {
      var id = d.nodes[i], m = info[id] || { title: id, type: '', loc: '', status: '' };
      var node = svgEl('g', { id: id, 'class': 'node tv-' + m.status, 'data-label': m.title }, g);
      svgEl('rect', { x: pos[i].x, y: pos[i].y, width: W, height: H, rx: 4 }, node);
      svgEl('text', { x: pos[i].x + 6, y: pos[i].y + 16 }, node).textContent = clip(m.title, 34);
      var loc = (m.loc || '').replace(/^.*\//, '');
      if (loc.length > 18) loc = '\u2026' + loc.substring(loc.length - 17);
      svgEl('text', { x: pos[i].x + 6, y: pos[i].y + 32 }, node).textContent = clip(m.type, 18) + '  ' + loc;
      if (m.first_difference) node.classList.add('tv-first-diff');
      bindNode(node, id);
    }
    return g.firstChild;
  }
  // The element of node `id`, its folded group expanded first.
  function elementOf(id) {
    var el = document.getElementById(id);
    if ((!el || el.hidden) && groupOf[id]) { expandGroup(groupOf[id]); el = document.getElementById(id); }
    return el;
  }
  // An expansion in view at a legible scale: its top, centred across, or its
  // left edge at the pane's when it is wider than the pane.
  function openGroup(gid) {
    var el = expandGroup(gid), p = el && paneOf(el);
    if (!p) { if (el) reveal(el); return; }
    var b = el.getBoundingClientRect(), u = toUser(p, b.left, b.top), z = size(p);
    var w = b.width / p.s;
    if (p.s < 0.6) p.s = 1;
    p.x = w * p.s > z.w ? u.x - 10 / p.s : u.x + w / 2 - z.w / (2 * p.s);
    p.y = u.y - 10 / p.s;
    apply(p);
  }

  // The side panel (Note [Side panel]).
  function attrsTable(d, other) {
    var names = Object.keys(d.attrs || {});
    if (!names.length) return '<div>no constant arguments</div>';
    var html = '<table><tr><th>constant</th><th>value</th>' + (other ? '<th>other side</th>' : '') + '</tr>';
    for (var i = 0; i < names.length; ++i) {
      var n = names[i], v = d.attrs[n], o = other && other.attrs ? other.attrs[n] : undefined;
      var differs = other && o !== v;
      html += '<tr' + (differs ? ' class="tv-differs"' : '') + '><td>' + esc(n) + '</td><td class="mono">' + esc(v) + '</td>' +
              (other ? '<td class="mono">' + esc(o === undefined ? '-' : o) + '</td>' : '') + '</tr>';
    }
    return html + '</table>';
  }
  function describe(id, d, other) {
    var html = '<div class="mono"><b>' + esc(d.title) + '</b></div><div>type <span class="mono">' + esc(d.type) + '</span>' +
               (d.loc ? ' &middot; <span class="mono">' + esc(d.loc) + '</span>' : '') + '</div><div>status: ' + esc(d.status) + '</div>';
    if (d.first_difference) html += '<div class="tv-first">' + esc(d.first_difference) + '</div>';
    return html + attrsTable(d, other);
  }
  function otherDivergence(id) {
    var side = id.indexOf('ref-') === 0 ? 'prod-' : 'ref-';
    for (var k in info) if (k.indexOf(side) === 0 && info[k].status === 'divergence') return k;
    return null;
  }
  function showPanel(id) {
    if (!panel) return;
    var d = info[id];
    if (!d) { panel.innerHTML = esc(id) + ': not drawn, or an output'; return; }
    var otherId = pairs[id], label = 'counterpart';
    if ((!otherId || !info[otherId]) && d.status === 'divergence') { otherId = otherDivergence(id); label = "the other side's divergence"; }
    var other = otherId ? info[otherId] : null;
    var html = describe(id, d, other);
    if (other) html += '<h4>' + label + '</h4>' + describe(otherId, other, d);
    else html += '<h4>' + label + '</h4><div>' + (otherId ? esc(otherId) + ' (folded)' : 'none on the other side') + '</div>';
    panel.innerHTML = html;
  }

  // centreSelf false: a click on the node itself (it is in view); its counterpart is centred.
  function select(id, centreSelf) {
    clearClass('tv-selected');
    var base = id.replace(/^full-/, '');
    var prefix = id.substring(0, id.length - base.length);
    var me = elementOf(id);
    if (!me) { status.textContent = id + ' is folded (open the full graphs)'; return; }
    me.classList.add('tv-selected');
    if (centreSelf !== false) reveal(me);
    showPanel(base);
    var other = pairs[base];
    if (!other) {
      status.textContent = titleOf(me) + ': no counterpart on the other side';
      return;
    }
    var el = document.getElementById(prefix + other) || elementOf(other);
    if (!el) {
      status.textContent = titleOf(me) + ' \u2194 ' + other + ' (folded; open the full graphs)';
      return;
    }
    el.classList.add('tv-selected');
    reveal(el);
    status.textContent = titleOf(me) + ' \u2194 ' + titleOf(el);
  }
  function bindNode(el, id) {
    el.addEventListener('click', function (ev) {
      ev.stopPropagation();
      if (groups[id]) openGroup(id);
      else select(id, false);
    });
  }
  var nodes = document.querySelectorAll('.node[id], tr.tv-group[id]');
  for (var n = 0; n < nodes.length; ++n) bindNode(nodes[n], nodes[n].id);
  var links = document.querySelectorAll('[data-target]');
  for (var j = 0; j < links.length; ++j) {
    links[j].addEventListener('click', (function (id) {
      return function () { select(id); };
    })(links[j].getAttribute('data-target')));
  }

  // Search over the drawn nodes: text and details; Enter goes to the next match.
  var found = [], at = -1, count = document.getElementById('tv-search-count');
  // Matches are ids: those in folded groups are expanded when they are reached.
  function next() {
    if (!found.length) return;
    at = (at + 1) % found.length;
    if (groups[found[at]]) openGroup(found[at]);
    else select(found[at]);
    var el = document.getElementById(found[at]);
    if (el) el.classList.add('tv-found');
    count.textContent = (at + 1) + ' of ' + found.length;
  }
  function details(d) { return d ? d.title + ' ' + d.type + ' ' + d.loc + ' ' + JSON.stringify(d.attrs) : ''; }
  function search(q) {
    clearClass('tv-found');
    found = [];
    at = -1;
    q = q.trim().toLowerCase();
    if (!q) { count.textContent = ''; return; }
    var all = document.querySelectorAll('.tv-pane .node[id]'), seen = {};
    for (var i = 0; i < all.length; ++i) {
      seen[all[i].id] = true;
      if ((all[i].textContent + ' ' + details(info[all[i].id])).toLowerCase().indexOf(q) >= 0) found.push(all[i].id);
    }
    for (var id in groupOf)
      if (!seen[id] && details(info[id]).toLowerCase().indexOf(q) >= 0) found.push(id);
    for (var k = 0; k < found.length; ++k) {
      var el = document.getElementById(found[k]);
      if (el) el.classList.add('tv-found');
    }
    if (found.length) next();
    else count.textContent = 'no drawn node matches';
  }
  var box = document.getElementById('tv-search');
  if (box) {
    box.addEventListener('input', function () { search(box.value); });
    box.addEventListener('keydown', function (e) { if (e.key === 'Enter') { e.preventDefault(); next(); } });
  }

  centreDivergences();
  var first = document.querySelector('#side-reference .node.tv-first-diff') ||
              document.querySelector('#side-reference .node.tv-divergence');
  if (first) showPanel(first.id);
  document.body.setAttribute('data-tv-ready', String(Math.round(performance.now())));
})();
)JS";

}  // namespace torchtv::html
