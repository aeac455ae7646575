// Opens torchtv HTML reports in headless Chromium (Debian's) through
// playwright-core and checks what a person would see. Usage:
//   node report_browser.js PLAYWRIGHT_DIR SCREENSHOT_PREFIX REPORT.html[:expect[:shot]] ...
// expect: "divergence" (a diverging pair), "counterexample", "equivalent", or
// "scale" (a diverging model-size pair: the divergence, search, fit and the
// side panel are checked as well), "scale-first" (and the first differing
// intermediate: drawn, in view, its numbers in the panel), "layers" (a diverging pair of repeated
// layers: the scale checks, and the repeats folded into boxes that expand on a click and on a
// search). shot: "shot" writes PREFIX-NAME.png.
// The time each page takes to open is printed, as a measurement: no test
// fails on a timing (the machine is shared).
const path = require('path');
const fs = require('fs');
const os = require('os');
const { chromium } = require(path.join(process.argv[2], 'node_modules', 'playwright-core'));

const shotPrefix = process.argv[3];
const reports = process.argv.slice(4);
const failures = [];
const check = (cond, msg) => { if (!cond) failures.push(msg); };

// Inside the browser window and inside its pane, as it is on screen (no scrolling).
async function inView(page, selector) {
  return page.locator(selector).first().evaluate(el => {
    const r = el.getBoundingClientRect(), pane = el.closest('.tv-pane').getBoundingClientRect();
    const x = (r.left + r.right) / 2, y = (r.top + r.bottom) / 2;
    return r.width > 0 && x >= 0 && y >= 0 && x <= window.innerWidth && y <= window.innerHeight &&
           x >= pane.left && x <= pane.right && y >= pane.top && y <= pane.bottom;
  });
}

// A model-size diverging pair: what the report is for at scale.
// first: the page must show the first differing intermediate (a counterexample the
// graphs were evaluated on; a pair refuted only by running the code has none). Where the
// page has one, it must be drawn, in view and in the panel with its numbers.
async function checkScale(page, name, first) {
  // The page centres the first differing value where it is drawn, else the divergence.
  const focus = async side => {
    const first = `#side-${side} .tv-pane svg .node.tv-first-diff`;
    return await page.locator(first).count() ? first : `#side-${side} .tv-pane svg .node.tv-divergence`;
  };
  for (const side of ['reference', 'production']) {
    check(await page.locator(`#side-${side} .tv-pane svg .node.tv-divergence`).count() > 0,
          `${name}: no divergence drawn (${side})`);
    const sel = await focus(side);
    if (await page.locator(sel).count())
      check(await inView(page, sel), `${name}: ${sel} is not in view on load`);
  }
  check(await page.locator('#first-divergence').isVisible(), `${name}: no first-divergence line`);
  if (first) check(await page.locator('#first-difference').isVisible(), `${name}: no first differing intermediate`);
  if (await page.locator('#first-difference').count()) {
    for (const side of ['reference', 'production']) {
      const sel = `#side-${side} .tv-pane svg .node.tv-first-diff`;
      check(await page.locator(sel).count() > 0, `${name}: the first differing value is not drawn (${side})`);
      if (await page.locator(sel).count())
        check(await inView(page, sel), `${name}: the ${side} first differing value is not in view on load`);
    }
    check(/\d/.test(await page.locator('#tv-panel-body .tv-first').first().textContent()),
          `${name}: the side panel does not give the first differing numbers`);
  }
  // The side panel opens on the divergence with its constants; a differing one is marked.
  check(await page.locator('#tv-panel-body table').count() > 0, `${name}: the side panel shows no constants`);
  // Search: the divergence's op finds at least that node and centres it.
  const info = JSON.parse(await page.locator('#tv-nodes').textContent());
  const divId = await page.locator('#side-reference svg .node.tv-divergence').first().getAttribute('id');
  const op = info[divId].title.split(' = ')[1];
  await page.fill('#tv-search', op);
  check(await page.locator('.node.tv-found').count() > 0, `${name}: searching "${op}" found no node`);
  check(/of/.test(await page.locator('#tv-search-count').textContent()), `${name}: no search count`);
  check(await inView(page, '.node.tv-found.tv-selected'), `${name}: the search's match is not centred`);
  await page.fill('#tv-search', 'no-such-node-anywhere');
  check(await page.locator('.node.tv-found').count() === 0, `${name}: a search for nothing found something`);
  await page.fill('#tv-search', '');
  // Zoom out, then Fit: the whole drawing inside its pane.
  await page.click('#tv-zoom-out');
  await page.click('#tv-fit');
  for (const side of ['reference', 'production']) {
    const fits = await page.locator(`#side-${side} .tv-pane svg g.graph`).evaluate(g => {
      const r = g.getBoundingClientRect(), pane = g.closest('.tv-pane').getBoundingClientRect();
      return r.left >= pane.left - 1 && r.top >= pane.top - 1 && r.right <= pane.right + 1 && r.bottom <= pane.bottom + 1;
    });
    check(fits, `${name}: after Fit the ${side} drawing is not inside its pane`);
  }
  // Wheel zoom changes the scale; a drag pans.
  const box = await page.locator('#side-reference .tv-pane').boundingBox();
  const before = await page.locator('#side-reference .tv-pane svg').getAttribute('viewBox');
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.wheel(0, -300);
  const zoomed = await page.locator('#side-reference .tv-pane svg').getAttribute('viewBox');
  check(zoomed !== before, `${name}: the wheel did not zoom`);
  // The divergence button brings it back into view.
  await page.click('#tv-centre');
  check(await inView(page, await focus('reference')), `${name}: Divergence did not centre it`);
}

// Repeated layers (Note [Folded layers]): each folded repeat is a "repeat k of N" box whose
// members are not drawn; a click draws them in place and in view, their panel works, the
// header folds them again; a search for a folded node opens its repeat and centres it.
async function checkFolding(page, name) {
  if (!await page.locator('#tv-groups').count()) return check(false, `${name}: no #tv-groups: nothing folded`);
  const groups = JSON.parse(await page.locator('#tv-groups').textContent());
  const info = JSON.parse(await page.locator('#tv-nodes').textContent());
  // Repeats holding what is marked (the divergence, the first differing value) are drawn
  // expanded when the page opens (Note [Folded layers]); the checks below are of the folded ones.
  const ids = [];
  for (const id of Object.keys(groups).filter(id => groups[id].nodes))
    if (!await page.locator(`[id="${id}-x"]`).count()) ids.push(id);
  for (const side of ['reference', 'production']) {
    const boxes = page.locator(`#side-${side} .tv-pane svg g.node.tv-group`);
    check(await boxes.count() > 0, `${name}: no folded repeat drawn (${side})`);
    for (let i = 0; i < await boxes.count(); ++i)
      check(/repeats? \d+(-\d+)? of \d+/.test(await boxes.nth(i).textContent()),
            `${name}: a repeat's box has no "repeat k of N" (or "repeats j-k of N")`);
  }
  check(ids.length > 0, `${name}: no folded repeat carries its nodes`);
  for (const id of ids)
    for (const m of groups[id].nodes)
      check(await page.locator(`[id="${m}"]`).count() === 0, `${name}: ${m} of the folded ${id} is drawn`);
  const drawnIds = [];
  for (const id of ids) if (await page.locator(`[id="${id}"]`).count()) drawnIds.push(id);
  if (!drawnIds.length) return check(false, `${name}: no folded repeat with its nodes is drawn as a box`);
  const gid = drawnIds[0], member = groups[gid].nodes[0];
  await page.click('#tv-fit');
  await page.locator(`[id="${gid}"]`).click();
  check(await page.locator(`[id="${gid}-x"] .node`).count() === groups[gid].nodes.length,
        `${name}: clicking ${gid} did not draw its ${groups[gid].nodes.length} nodes`);
  check(await inView(page, `[id="${gid}-x"] .tv-fold`), `${name}: the expanded ${gid} is not in view`);
  await page.locator(`[id="${member}"]`).click();
  check((await page.locator('#tv-panel-body').textContent()).includes(info[member].title),
        `${name}: the side panel does not show the expanded ${member}`);
  await page.locator(`[id="${gid}-x"] .tv-fold`).click();
  check(await page.locator(`[id="${gid}-x"]`).count() === 0, `${name}: the header did not fold ${gid} again`);
  // A range box (a long run of repeats, at many layers) opens into its repeats' boxes.
  const range = Object.keys(groups).find(id => groups[id].groups);
  if (range) {
    await page.click('#tv-fit');
    await page.locator(`[id="${range}"]`).click();
    check(await page.locator(`[id="${range}-x"] .node.tv-group`).count() === groups[range].groups.length,
          `${name}: clicking ${range} did not list its ${groups[range].groups.length} repeats`);
    await page.locator(`[id="${range}-x"] .tv-fold`).click();
  }
  const last = ids[ids.length - 1], target = groups[last].nodes[groups[last].nodes.length - 1];
  // Enter goes to the next match, until the folded one (the same name may be on both sides).
  await page.fill('#tv-search', info[target].title);
  const matches = parseInt(((await page.locator('#tv-search-count').textContent()).match(/of (\d+)/) || [0, 0])[1]);
  for (let k = 1; k < matches && !(await page.locator(`[id="${target}"].tv-selected`).count()); ++k)
    await page.press('#tv-search', 'Enter');
  check(await page.locator(`[id="${target}"].tv-found`).count() === 1,
        `${name}: searching "${info[target].title}" did not open its repeat ${last}`);
  if (await page.locator(`[id="${target}"]`).count())
    check(await inView(page, `[id="${target}"]`), `${name}: the folded search match is not centred`);
  await page.fill('#tv-search', '');
}

(async () => {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'torchtv-chromium-'));
  // A fresh profile (--user-data-dir) per run: playwright takes it as an argument.
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    for (let i = 0; i < reports.length; ++i) {
      const [file, expect, shot] = reports[i].split(':');
      const page = await browser.newPage();
      const errors = [], remote = [];
      page.on('console', m => { if (m.type() === 'error') errors.push(m.text()); });
      page.on('pageerror', e => errors.push(String(e)));
      page.on('request', r => { if (!r.url().startsWith('file:')) remote.push(r.url()); });
      const started = Date.now();
      await page.goto('file://' + path.resolve(file), { waitUntil: 'load' });
      const name = path.basename(file);
      const opened = Date.now() - started;
      const ready = await page.evaluate(() => document.body.getAttribute('data-tv-ready'));
      const size = fs.statSync(file).size;
      const drawn = async side => `${await page.locator(`#side-${side} .tv-pane svg g.node`).count()}` +
          ` (${await page.locator(`#side-${side} .tv-pane svg g.node.tv-group`).count()} repeat boxes)`;
      console.log(`measured ${name}: ${(size / 1024).toFixed(0)} KiB, load event after ${opened} ms, ` +
                  `script ready at ${ready} ms after navigation start; drawn nodes: reference ${await drawn('reference')}, ` +
                  `production ${await drawn('production')}`);
      check(errors.length === 0, `${name}: console errors: ${errors.join(' | ')}`);
      check(remote.length === 0, `${name}: fetched ${remote.join(', ')} (a report must work offline)`);
      const rows = await page.locator('#verdict-table tr.output-row, #proven-table tr.output-row').count();
      check(rows > 0, `${name}: no rows in the outputs tables`);
      check(await page.locator('#summary').isVisible(), `${name}: no summary`);
      check(ready !== null, `${name}: the page's script did not finish`);
      if (expect === 'divergence') {
        check(await page.locator('#side-reference .tv-divergence').count() > 0, `${name}: no divergence drawn (reference)`);
        check(await page.locator('#side-production .tv-divergence').count() > 0, `${name}: no divergence drawn (production)`);
        check(await page.locator('#first-divergence').isVisible(), `${name}: no first-divergence section`);
        // Clicking a matched node highlights its counterpart on the other side.
        const pairs = JSON.parse(await page.locator('#tv-pairs').textContent());
        const matched = await page.locator('#side-reference g.node.tv-matched').first().getAttribute('id');
        check(matched && pairs[matched], `${name}: a matched node without a counterpart in #tv-pairs`);
        await page.locator(`[id="${matched}"]`).click();
        const partnerSelected = await page.locator(`[id="${pairs[matched]}"]`).evaluate(
            el => el.classList.contains('tv-selected'));
        check(partnerSelected, `${name}: clicking ${matched} did not highlight ${pairs[matched]}`);
        check((await page.locator('#tv-selection').textContent()).includes('\u2194'),
              `${name}: the selection line does not name both nodes`);
        // The divergence link in the verdict table selects the node it names.
        await page.locator('#verdict-table a.site[data-target^="prod-"]').first().click();
        check(await page.locator('#side-production .tv-selected').count() === 1,
              `${name}: the verdict table's site link selects nothing`);
        await page.locator(`[id="${matched}"]`).click();
      }
      if (expect === 'counterexample')
        check(await page.locator('#counterexample').isVisible(), `${name}: no counterexample section`);
      if (expect === 'equivalent') {
        check(await page.locator('#equivalent-summary').isVisible(), `${name}: no equivalent summary`);
        check(await page.locator('#first-divergence').count() === 0, `${name}: a first-divergence section`);
        check(!(await page.locator('body').textContent()).includes('First divergence'),
              `${name}: says "First divergence" for an equivalent pair`);
        const visibleRows = await page.locator('tr:visible').count();
        check(visibleRows < 100, `${name}: ${visibleRows} table rows in view for an equivalent pair`);
      }
      if (expect === 'scale' || expect === 'scale-first' || expect === 'layers')
        await checkScale(page, name, expect === 'scale-first');
      if (expect === 'layers') await checkFolding(page, name);
      if (shot === 'shot') await page.screenshot({ path: `${shotPrefix}-${path.basename(file, '.html')}.png`, fullPage: false });
      await page.close();
    }
  } finally {
    await browser.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  for (const f of failures) console.error('FAIL browser: ' + f);
  process.exit(failures.length ? 1 : 0);
})().catch(e => { console.error('FAIL browser: ' + (e.stack || e)); process.exit(1); });
