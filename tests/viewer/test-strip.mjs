// viewer_strip: the summary strip above each chart says what `weir capture
// summary` says — per window operator the on-time and late firings and the
// late elements sent to the side output or dropped, and the longest
// watermark stall with the input channel that held it back — with the same
// numbers, read from the summary's own text (the real binary run on the same
// capture). Its numbers are buttons: a click shows only those events in the
// chart (only that kind of mark is drawn) and in the table (as many rows as
// the number says); the stall zooms to the stall and selects the watermark
// that ended it. Bounded: two demo captures, a few clicks each.
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { runner, capture, load, stats, here, readJsonl, subtaskLines } from './lib.mjs';

const r = runner('strip');
const weir = join(resolve(process.env.WEIR_BUILD || join(here, '..', '..', 'build', 'release')), 'tools', 'weir');

// The rows of one table of `weir capture summary`'s report, as arrays of
// cells (columns are separated by two spaces or more). A row's note (the
// line under it, four spaces in, with its wrapped lines) is its `note`.
function summaryTable(text, title) {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => l.startsWith(title));
  if (at < 0) throw new Error(`no "${title}" in the summary`);
  const rows = [];
  for (let k = at + 2; k < lines.length && lines[k].startsWith('  ') && lines[k].trim() !== 'none'; k++) {
    if (lines[k].startsWith('  (') || lines[k].startsWith('  held at the end')) break;
    if (lines[k].startsWith('      ') && rows.length) rows[rows.length - 1].note += ` ${lines[k].trim()}`;
    else if (lines[k].startsWith('    ') && rows.length) rows[rows.length - 1].note = lines[k].trim();
    else rows.push(Object.assign(lines[k].trim().split(/\s{2,}/), { note: '' }));
  }
  return rows;
}
// The first output watermark of each operator subtask, from the file.
function firstWatermarks(path) {
  const first = new Map();
  for (const e of readJsonl(path)) {
    if (e.kind === 'watermark' && e.input === undefined && !first.has(`${e.op}[${e.subtask}]`)) first.set(`${e.op}[${e.subtask}]`, e.t);
  }
  return first;
}
function summaryOf(path) {
  const text = execFileSync(weir, ['capture', 'summary', path], { encoding: 'utf8' });
  const windows = summaryTable(text, 'windows and late elements').map((c) => ({
    op: c[0], fire: Number(c[1]), lateFire: Number(c[2]), dropped: Number(c[4]), side: Number(c[5]) }));
  const stalls = summaryTable(text, 'watermarks').map((c) => {
    const m = /^(\d+) ms$/.exec(c[6] || '');
    const n = /^t (\d+)\.\.(\d+)(?:, to MAX)?: (.*)$/.exec(c.note);
    const ch = /channel (\d+)/.exec(n ? n[3] : '');
    return m && n && { op: c[0], sub: Number(c[1]), ms: Number(m[1]), from: Number(n[1]), to: Number(n[2]),
      valve: /^(held by|no aligned)/.test(n[3]), channel: ch ? Number(ch[1]) : null };
  }).filter(Boolean);
  const interval = readJsonl(path)[0].settings.watermark_interval_ms;
  return { windows, stalls, interval, first: firstWatermarks(path) };
}

async function strip(page) {
  return page.evaluate(() => [...document.querySelectorAll('section.capture')].map((card) => ({
    windows: [...card.querySelectorAll('.strip-row[data-window]')].map((row) => ({
      op: row.dataset.window,
      ...Object.fromEntries([...row.querySelectorAll('button.strip-num')].map((b) => [b.dataset.what, Number(b.dataset.count)])),
      shown: Object.fromEntries([...row.querySelectorAll('button.strip-num')].map((b) => [b.dataset.what, b.textContent])),
    })),
    stall: (() => { const b = card.querySelector('button.strip-stall'); return b && { op: b.dataset.op, sub: Number(b.dataset.sub),
      ms: Number(b.dataset.ms), from: Number(b.dataset.from), to: Number(b.dataset.to), channel: b.dataset.channel === '' ? null : Number(b.dataset.channel),
      text: b.parentElement.parentElement.textContent }; })(),
    noStall: (() => { const row = card.querySelector('.strip-stall-row[data-none]'); return row ? row.textContent : null; })(),
  })));
}

function checkAgainstSummary(check, path, got) {
  const want = summaryOf(path);
  check(got.windows.length === want.windows.length, `${path}: a row per window operator: ${got.windows.map((w) => w.op)} / ${want.windows.map((w) => w.op)}`);
  for (const w of want.windows) {
    const g = got.windows.find((x) => x.op === w.op);
    if (!check(g, `${w.op} has a row`)) continue;
    for (const k of ['fire', 'lateFire', 'side', 'dropped']) {
      check(g[k] === w[k] && g.shown[k] === w[k].toLocaleString('en-US'), `${w.op} ${k}: strip ${g[k]} ("${g.shown[k]}"), weir capture summary ${w[k]}`);
    }
  }
  // The strip's stall is the summary's longest of those held at a valve,
  // leaving out the time at an output's first watermark (the start-up) and
  // gaps no longer than the watermark interval (the periodic cadence).
  const counted = want.stalls.filter((x) => x.from !== want.first.get(`${x.op}[${x.sub}]`) && x.ms > want.interval);
  const valve = counted.filter((x) => x.valve);
  const best = (valve.length ? valve : counted).reduce((b, x) => (!b || x.ms > b.ms ? x : b), null);
  const s = got.stall;
  if (!best) {
    check(!s && got.noStall, `no stall in the strip (${JSON.stringify(s)}), as in the summary's: ${JSON.stringify(want.stalls.slice(0, 4))}`);
  } else if (check(s, `a stall in the strip (${JSON.stringify(s)}) and the summary (${JSON.stringify(best)})`)) {
    check(s.op === best.op && s.sub === best.sub && s.ms === best.ms && s.from === best.from && s.to === best.to,
      `the stall: strip ${s.op}[${s.sub}] ${s.ms} ms (${s.from}..${s.to}), summary ${best.op}[${best.sub}] ${best.ms} ms (${best.from}..${best.to})`);
    check(s.channel === best.channel, `held by channel ${s.channel}, summary ${best.channel}`);
  }
  return { want, best };
}

r.test('lateness-numbers-and-clicks', async ({ page, check }) => {
  const path = capture.demo();
  await load(page, [path]);
  const [got] = await strip(page);
  checkAgainstSummary(check, path, got);
  // Its watermarks advance every 200 ms from the start: no stall. (The first
  // of those equal gaps, at the first watermark, -178, was named one.)
  check(got.noStall && /watermark interval \(200 ms\)/.test(got.noStall) && !/-178/.test(got.noStall),
    `the lateness run has no stall: ${got.noStall} / ${JSON.stringify(got.stall)}`);
  const side = got.windows.find((w) => w.side > 0);
  if (!check(side, 'a window sends late elements to the side output')) return;
  // Click the side-output count: the chart draws only those marks, the table lists only them.
  await page.click(`.strip-row[data-window="${side.op}"] button[data-what="side"]`);
  await page.waitForFunction(() => { const t = window.weirViewer.stats().table; return t && !t.busy; });
  await page.waitForTimeout(150);
  let s = await stats(page);
  const c = s.captures[0];
  check(c.focusOp === side.op && c.markFilter === 'side', `chart filtered to ${side.op}'s side output: ${c.focusOp} ${c.markFilter}`);
  check(c.drawn.marks.side > 0 && c.drawn.marks.fire === 0 && c.drawn.marks.lateFire === 0 && c.drawn.marks.dropped === 0,
    `only side-output marks drawn: ${JSON.stringify(c.drawn.marks)}`);
  check(s.table.matched === side.side, `the table lists ${side.side} events: ${s.table.matched}`);
  check(await page.locator('.focus-note').first().isVisible(), 'a note says what is shown');
  // Dropped of the other window.
  const drop = got.windows.find((w) => w.dropped > 0);
  await page.click(`.strip-row[data-window="${drop.op}"] button[data-what="dropped"]`);
  await page.waitForFunction(() => { const t = window.weirViewer.stats().table; return t && !t.busy; });
  await page.waitForTimeout(150);
  s = await stats(page);
  check(s.captures[0].markFilter === 'dropped' && s.table.matched === drop.dropped, `dropped: ${s.table.matched} rows = ${drop.dropped}`);
  check(s.captures[0].drawn.marks.dropped > 0 && s.captures[0].drawn.marks.side === 0, 'only crosses drawn');
  await page.click('.focus-note button.clear-focus');
  await page.waitForTimeout(150);
  s = await stats(page);
  check(!s.captures[0].markFilter && !s.captures[0].focusOp && s.table.matched === s.table.total, `Clear shows everything again: ${JSON.stringify(s.table)}`);
  // A zero is not a button to click.
  check(await page.locator(`.strip-row[data-window="${side.op}"] button[data-what="dropped"]`).isDisabled(), 'a 0 count is disabled');
});

r.test('idle-stall-zooms-and-selects', async ({ page, check }) => {
  const path = capture.a();
  await load(page, [path]);
  const [got] = await strip(page);
  const { best } = checkAgainstSummary(check, path, got);
  check(/held back by input channel \d+/.test(got.stall.text) && /fed by timestamps\[\d\]/.test(got.stall.text), `the stall says who held it: ${got.stall.text}`);
  await page.click('button.strip-stall');
  await page.waitForFunction(() => { const t = window.weirViewer.stats().table; return t && !t.busy; });
  await page.waitForTimeout(150);
  const s = await stats(page);
  check(s.view.t0 < best.from && s.view.t1 > best.to && s.view.t1 - s.view.t0 < (best.to - best.from) * 2, `the view shows the stall: ${JSON.stringify(s.view)}`);
  check(s.cursor && s.cursor.t === best.to, `the watermark that ended it is selected: ${JSON.stringify(s.cursor)}`);
  check(s.table.filters.sub === best.sub && s.table.matched > 0, `the table lists ${best.op}[${best.sub}]'s watermarks: ${JSON.stringify(s.table)}`);
});

// Where a chart writes its stall ("window[0] stuck 2.2 s at 14,639, held by
// timestamps[2]"), its white box hides no watermark line: checked against
// the lines the file gives (every subtask's, drawn one per subtask), mapped
// to pixels by the viewer's own scale, in the whole run, zoomed to the
// stall (the other subtasks' lines rise through the space over it) and with
// the stall at the chart's left edge (the label cannot end before the
// stall's end there). Once it sat across the line, hiding about a second
// of it.
function outputSeries(path) {
  const by = new Map();
  for (const e of readJsonl(path)) {
    if (e.kind !== 'watermark' || e.input !== undefined) continue;
    const k = `${e.op}[${e.subtask}]`;
    if (!by.has(k)) by.set(k, []);
    by.get(k).push({ t: e.t, v: e.watermark === 'MAX' ? Infinity : e.watermark === 'MIN' ? -Infinity : e.watermark });
  }
  // a subtask whose only watermark is MAX has no line
  return [...by.entries()].filter(([, pts]) => pts.some((p) => Number.isFinite(p.v)));
}
async function labelHidesNoLine(page, check, series, what) {
  const c = (await stats(page)).captures[0];
  const note = c.drawn.stallNote;
  if (!check(note, `${what}: the stall is written on the chart`)) return;
  check(!note.hides, `${what}: the viewer found no free place for the label`);
  const px = await page.evaluate(([a, b]) => [window.weirViewer.pixelOf(0, a, 0).x, window.weirViewer.pixelOf(0, b, 0).x], [0, 1000]);
  const tOf = (x) => ((x - px[0]) * 1000) / (px[1] - px[0]);
  const t0 = tOf(note.x), t1 = tOf(note.x + note.w);
  for (const [name, pts] of series) {
    // the value the line enters the box's span with, then every step in it
    // (a line stops at MAX)
    const enter = pts.findLastIndex((p) => p.t <= t0);
    if (enter >= 0 && pts[enter].v === Infinity) continue;
    const vals = [];
    if (enter >= 0) vals.push(pts[enter].v);
    for (let k = enter + 1; k < pts.length && pts[k].t <= t1 && pts[k].v !== Infinity; k++) vals.push(pts[k].v);
    const fin = vals.filter(Number.isFinite);
    if (!fin.length) continue;
    const lo = Math.min(...fin), hi = Math.max(...fin);
    const [ylo, yhi] = await page.evaluate(([a, b]) => [window.weirViewer.pixelOf(0, 0, a).y, window.weirViewer.pixelOf(0, 0, b).y], [lo, hi]);
    const hidden = ylo >= note.y - 1 && yhi <= note.y + note.h + 1;
    check(!hidden, `${what}: the label (x ${note.x.toFixed(0)}..${(note.x + note.w).toFixed(0)}, y ${note.y}..${note.y + note.h}) ` +
      `hides ${name}'s line (${lo}..${hi} at y ${yhi}..${ylo}, t ${t0.toFixed(0)}..${t1.toFixed(0)})`);
  }
}

r.test('stall-label-hides-no-line', async ({ page, check }) => {
  const path = capture.b();
  const series = outputSeries(path);
  await page.setViewportSize({ width: 1600, height: 1000 });
  await load(page, [path]);
  await subtaskLines(page);
  await labelHidesNoLine(page, check, series, 'the whole run');
  const frames = (await stats(page)).captures[0].frames;
  await page.click('button.strip-stall');
  await page.waitForFunction((f) => window.weirViewer.stats().captures[0].frames > f, frames);
  await labelHidesNoLine(page, check, series, 'zoomed to the stall');
  // the stall at the left edge: a dragged range from just before it
  const st = await page.evaluate(() => { const b = document.querySelector('button.strip-stall'); return { from: Number(b.dataset.from), to: Number(b.dataset.to) }; });
  await page.click('#reset-zoom');
  const c = (await stats(page)).captures[0];
  const box = await page.locator('canvas.chart').first().boundingBox();
  const xOf = async (t) => box.x + (await page.evaluate((tt) => window.weirViewer.pixelOf(0, tt, 0).x, t));
  const y = box.y + c.plot.y + c.plot.h / 2;
  const xa = await xOf(st.from - 50), xb = await xOf(st.from + (st.to - st.from) * 6);
  const before = (await stats(page)).captures[0].frames;
  await page.mouse.move(xa, y);
  await page.mouse.down();
  await page.mouse.move((xa + xb) / 2, y, { steps: 3 });
  await page.mouse.move(xb, y, { steps: 3 });
  await page.mouse.up();
  await page.waitForFunction((f) => window.weirViewer.stats().captures[0].frames > f, before);
  const v = (await stats(page)).view;
  check(v.t0 < st.from && v.t0 > st.from - 1000, `the view starts just before the stall: ${JSON.stringify(v)} / ${JSON.stringify(st)}`);
  await labelHidesNoLine(page, check, series, 'the stall at the left edge');
});

await r.run();
