// viewer_table: the event table's filters (kind, operator, subtask, key,
// text) match what the file holds, "show more" pages, the t order flips, and
// clicking a row marks that event on the timeline.
import { runner, capture, load, stats, pixels, readJsonl } from './lib.mjs';

const r = runner('table');

async function settled(page) {
  await page.waitForFunction(() => { const t = window.weirViewer.stats().table; return t && !t.busy; });
  await page.waitForTimeout(250);       // the text fields are debounced
  await page.waitForFunction(() => { const t = window.weirViewer.stats().table; return t && !t.busy; });
  return (await stats(page)).table;
}
const cells = (page, col) => page.locator(`#table-body tr td:nth-child(${col})`).allTextContents();
const num = (s) => Number(s.replace(/,/g, ''));
// Kind options read "window_fire (140)": pick the one for a kind by its name.
async function selectKind(page, kind) {
  const value = await page.$eval('#f-kind', (sel, k) => [...sel.options].find((o) => o.text.split(' ')[0] === k)?.value, kind);
  if (value === undefined) throw new Error(`no kind option ${kind}`);
  await page.selectOption('#f-kind', value);
}

r.test('filters-paging-sort', async ({ page, check }) => {
  const path = capture.demo();
  const events = readJsonl(path);
  const raw = (await import('node:fs')).readFileSync(path, 'utf8').split('\n').filter((l) => l.trim());
  await load(page, [path]);
  let t = await settled(page);
  check(t.total === events.length && t.matched === events.length, `no filter: ${t.matched} of ${t.total}, file ${events.length}`);
  check(t.rows === 200, `first page 200 rows, got ${t.rows}`);
  check(await page.locator('#table-body tr').count() === 200, 'the DOM holds 200 rows');
  await page.click('#show-more');
  t = await settled(page);
  check(t.rows === 400 && await page.locator('#table-body tr').count() === 400, `show more: ${t.rows} rows`);

  // Ascending t by default; the table lists events stably sorted by t.
  let ts = (await cells(page, 1)).map(num);
  check(ts.every((v, i) => i === 0 || ts[i - 1] <= v), 'rows ascend by t');
  const sorted = events.map((e, i) => [e.t, i]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  check(ts[0] === sorted[0][0] && ts[399] === sorted[399][0], `first/last t ${ts[0]}/${ts[399]} vs file ${sorted[0][0]}/${sorted[399][0]}`);

  // Kind.
  await selectKind(page, 'window_fire');
  t = await settled(page);
  const fires = events.filter((e) => e.kind === 'window_fire');
  check(t.matched === fires.length, `kind window_fire: ${t.matched}, file ${fires.length}`);
  const kinds = await cells(page, 2);
  check(kinds.length === Math.min(200, fires.length) && kinds.every((k) => k === 'window_fire'), `every row is a window_fire (${kinds.length} rows)`);

  // Kind and operator.
  const opName = fires[fires.length - 1].op;
  await page.selectOption('#f-op', { label: opName });
  t = await settled(page);
  const both = fires.filter((e) => e.op === opName);
  check(t.matched === both.length, `window_fire of ${opName}: ${t.matched}, file ${both.length}`);
  check((await cells(page, 3)).every((o) => o === opName), 'every row is of that operator');

  // Subtask.
  await page.fill('#f-sub', '1');
  t = await settled(page);
  const sub1 = both.filter((e) => e.subtask === 1);
  check(t.matched === sub1.length, `subtask 1: ${t.matched}, file ${sub1.length}`);

  // Key (exact).
  const key = sub1.length ? sub1[0].key : both[0].key;
  await page.fill('#f-sub', '');
  await page.fill('#f-key', key);
  t = await settled(page);
  const withKey = both.filter((e) => e.key === key);
  check(t.matched === withKey.length, `key ${key}: ${t.matched}, file ${withKey.length}`);
  check((await cells(page, 5)).every((k) => k === key), 'every row has that key');

  // Free text alone (case-insensitive), over every kind.
  await page.click('#f-clear');
  t = await settled(page);
  check(t.matched === events.length, `clear filters: ${t.matched}`);
  const word = 'HELD_BY';
  await page.fill('#f-text', word);
  t = await settled(page);
  const hits = raw.filter((l) => l.toLowerCase().includes(word.toLowerCase())).length;
  check(hits > 0 && t.matched === hits, `text ${word}: ${t.matched}, file lines ${hits}`);
  const details = await cells(page, 6);
  check(details.every((d) => d.includes('held_by')), 'every row shows held_by');
  await page.fill('#f-text', '"t":');
  t = await settled(page);
  check(t.matched === events.length, `a text every event holds matches all ${events.length}: ${t.matched}`);
  await page.fill('#f-text', 'no such text anywhere');
  t = await settled(page);
  check(t.matched === 0 && t.rows === 0, `nothing matches: ${t.matched} rows ${t.rows}`);
  check(await page.locator('#show-more').isHidden(), 'no "show more" when everything is shown');
  await page.fill('#f-text', '');

  // Sorting flips the order.
  await selectKind(page, 'late');
  t = await settled(page);
  const lates = events.filter((e) => e.kind === 'late').map((e) => e.t);
  ts = (await cells(page, 1)).map(num);
  check(ts[0] === Math.min(...lates), `ascending: first ${ts[0]}, min ${Math.min(...lates)}`);
  await page.click('#sort-t-head');
  t = await settled(page);
  ts = (await cells(page, 1)).map(num);
  check(t.desc === true, 'descending');
  check(ts[0] === Math.max(...lates) && ts.every((v, i) => i === 0 || ts[i - 1] >= v), `descending: first ${ts[0]}, max ${Math.max(...lates)}`);
  await page.click('#sort-t');
  t = await settled(page);
  check(t.desc === false, 'the toolbar button flips it back');
});

r.test('row-marks-timeline', async ({ page, check }) => {
  const path = capture.demo();
  const s0 = await load(page, [path]);
  const plot = s0.captures[0].plot;
  // Zoom into the first tenth, then pick an event near the end: the view must
  // move to it and the cursor be drawn there.
  const box = await page.locator('canvas.chart').boundingBox();
  await page.mouse.move(box.x + plot.x + 10, box.y + plot.y + plot.h / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + plot.x + plot.w * 0.1, box.y + plot.y + plot.h / 2, { steps: 3 });
  await page.mouse.up();
  await page.waitForTimeout(150);
  const zoomed = (await stats(page)).view;
  await selectKind(page, 'window_fire');
  await settled(page);
  await page.click('#sort-t-head');
  await settled(page);
  const row = page.locator('#table-body tr').first();
  const rowT = num(await row.locator('td').first().textContent());
  check(rowT > zoomed.t1, `the chosen event (t=${rowT}) is outside the zoomed view ${zoomed.t0}..${zoomed.t1}`);
  await row.click();
  await page.waitForTimeout(200);
  const s1 = await stats(page);
  check(s1.cursor && s1.cursor.t === rowT, `cursor at the row's event: ${JSON.stringify(s1.cursor)}`);
  check(s1.view.t0 <= rowT && rowT <= s1.view.t1, `the view moved to it: ${s1.view.t0}..${s1.view.t1}`);
  check(Math.abs((s1.view.t1 - s1.view.t0) - (zoomed.t1 - zoomed.t0)) < 1, 'and kept its zoom');
  check(await row.getAttribute('class') === 'selected', 'the row is highlighted');
  // The cursor is really drawn: a vertical run of its red at the event's x.
  const x = await page.evaluate((t) => window.weirViewer.pixelOf(0, t, 0).x, rowT);
  const cursorPx = await pixels(page, 'canvas.chart', { x: Math.round(x) - 1, y: plot.y, w: 3, h: plot.h }, ['#d1242f'], 10);
  check(cursorPx.counts[0] > plot.h * 0.5, `cursor pixels at x=${x.toFixed(1)}: ${cursorPx.counts[0]}`);
  const sel = await page.locator('.selected-event').first().textContent();
  check(sel.includes('window_fire'), `the selected event's text is shown: ${sel.slice(0, 80)}`);
});

await r.run();
