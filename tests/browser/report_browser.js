// Opens torchtv HTML reports in headless Chromium (Debian's) through
// playwright-core and checks what a person would see. Usage:
//   node report_browser.js PLAYWRIGHT_DIR SCREENSHOT REPORT.html[:expect] ...
// expect: "divergence" (a diverging pair) or "counterexample".
const path = require('path');
const fs = require('fs');
const os = require('os');
const { chromium } = require(path.join(process.argv[2], 'node_modules', 'playwright-core'));

const screenshot = process.argv[3];
const reports = process.argv.slice(4);
const failures = [];
const check = (cond, msg) => { if (!cond) failures.push(msg); };

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
      const [file, expect] = reports[i].split(':');
      const page = await browser.newPage();
      const errors = [], remote = [];
      page.on('console', m => { if (m.type() === 'error') errors.push(m.text()); });
      page.on('pageerror', e => errors.push(String(e)));
      page.on('request', r => { if (!r.url().startsWith('file:')) remote.push(r.url()); });
      await page.goto('file://' + path.resolve(file), { waitUntil: 'load' });
      const name = path.basename(file);
      check(errors.length === 0, `${name}: console errors: ${errors.join(' | ')}`);
      check(remote.length === 0, `${name}: fetched ${remote.join(', ')} (a report must work offline)`);
      const rows = await page.locator('#verdict-table tr.output-row').count();
      check(rows > 0, `${name}: no rows in the verdict table`);
      check(await page.locator('#verdict-table').isVisible(), `${name}: verdict table not visible`);
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
      if (i === 0) await page.screenshot({ path: screenshot, fullPage: false });
      await page.close();
    }
  } finally {
    await browser.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  for (const f of failures) console.error('FAIL browser: ' + f);
  process.exit(failures.length ? 1 : 0);
})().catch(e => { console.error('FAIL browser: ' + (e.stack || e)); process.exit(1); });
