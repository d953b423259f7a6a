// viewer_million: a capture of a million events (JSONL, and msgpack when
// there is one) loads and renders its first frame, and the page stays
// responsive. The capture is written during the test run by big-capture.c
// (a weir job at the verbose level: most events are per-record ones). The times are measured and REPORTED (printed and written to
// WEIR_VIEWER_OUT/perf.txt); the test fails only if a frame never comes or
// takes longer than a very generous bound, because the machine's speed is
// not the viewer's business.
import { existsSync, writeFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { runner, capture, stats, pixels, outDir } from './lib.mjs';

// The watermark lines' colours (each operator's and each subtask's, whichever
// the line mode draws), to count their pixels.
async function lineColours(page) {
  return page.evaluate(() => {
    const s = window.weirViewer.stats().captures[0];
    const out = [];
    for (const op of s.operators) { out.push(window.weirViewer.colorOf(0, op, null)); for (let k = 0; k < 8; k++) out.push(window.weirViewer.colorOf(0, op, k)); }
    return [...new Set(out)];
  });
}

const BOUND_MS = 120000;
const r = runner('million');
const report = [];

async function measure(page, check, path) {
  const size = statSync(path).size;
  const started = Date.now();
  await page.setInputFiles('#file-open', [path]);
  await page.waitForFunction(() => {
    const s = window.weirViewer.stats();
    return !s.loading && (s.captures.some((c) => c.frames > 0) || s.messages.some((m) => m.level === 'error'));
  }, null, { timeout: BOUND_MS + 30000, polling: 100 });
  const wall = Date.now() - started;
  const s = await stats(page);
  const c = s.captures[0];
  check(c && c.frames > 0, `a first frame was drawn (${JSON.stringify(s.messages)})`);
  if (!c) return null;
  check(c.events >= 1000000, `a million events: ${c.events}`);
  check(wall < BOUND_MS, `first frame after ${wall} ms, the bound is ${BOUND_MS} ms`);
  const px = await pixels(page, 'canvas.chart', c.plot);
  check(px.ink > px.w * px.h * 0.02 && px.distinct > 10, `the first frame is a picture (${px.ink} pixels, ${px.distinct} colours)`);
  check(c.drawn.output > 0 && c.drawn.markers > 0, `series ${c.drawn.output} and marks ${c.drawn.markers} drawn`);
  check(s.table.rows === 200, `the table shows one page of rows, not a million: ${s.table.rows}`);
  // Responsive: a zoom is redrawn, and quickly enough to use.
  const box = await page.locator('canvas.chart').boundingBox();
  const z0 = Date.now();
  const frames = c.frames;
  await page.mouse.move(box.x + c.plot.x + c.plot.w / 2, box.y + c.plot.y + c.plot.h / 2);
  await page.mouse.wheel(0, -500);
  await page.waitForFunction((f) => window.weirViewer.stats().captures[0].frames > f, frames, { timeout: 30000 });
  const zoomMs = Date.now() - z0;
  const drawMs = (await stats(page)).captures[0].drawn.ms;
  // A text filter over every event finishes too.
  const f0 = Date.now();
  await page.fill('#f-text', '"key":"k42"');
  await page.waitForFunction(() => { const t = window.weirViewer.stats().table; return t && !t.busy && t.matched < t.total; }, null, { timeout: 60000 });
  const filterMs = Date.now() - f0;
  const matched = (await stats(page)).table.matched;
  check(matched > 0, `the text filter finds k42: ${matched}`);
  // Records on (a million dots): the watermark lines stay on top of them.
  const cols = await lineColours(page);
  const before = await pixels(page, 'canvas.chart', (await stats(page)).captures[0].plot, cols, 1);
  const f1 = (await stats(page)).captures[0].frames;
  await page.check('#opt-records');
  await page.waitForFunction((f) => window.weirViewer.stats().captures[0].frames > f, f1, { timeout: 30000 });
  const after = await pixels(page, 'canvas.chart', (await stats(page)).captures[0].plot, cols, 1);
  const sum = (p) => p.counts.reduce((a, b) => a + b, 0);
  check((await stats(page)).captures[0].drawn.marks.record > 0, 'records drawn');
  console.log(`records on: line pixels ${sum(before)} -> ${sum(after)}`);
  check(sum(before) > 100 && sum(after) >= sum(before) * 0.8, `the lines keep their pixels with records on: ${sum(before)} -> ${sum(after)}`);
  await page.uncheck('#opt-records');
  return { path, size, events: c.events, wall, loadMs: Math.round(c.loadMs), firstFrameMs: Math.round(c.firstFrameMs), zoomMs, drawMs: Math.round(drawMs), filterMs };
}

function line(m) {
  return `${m.path}: ${m.events} events, ${(m.size / 1e6).toFixed(1)} MB: first frame ${m.wall} ms after setInputFiles ` +
    `(viewer: parse ${m.loadMs} ms, first frame ${m.firstFrameMs} ms after the load began); ` +
    `zoom redraw ${m.zoomMs} ms (draw ${m.drawMs} ms); text filter over all events ${m.filterMs} ms`;
}

r.test('jsonl', async ({ page, check }) => {
  const m = await measure(page, check, capture.big());
  if (m) { console.log(`PERF ${line(m)}`); report.push(line(m)); }
});

const packed = capture.bigMsgpack();
if (existsSync(packed)) {
  r.test('msgpack', async ({ page, check }) => {
    const m = await measure(page, check, packed);
    if (m) { console.log(`PERF ${line(m)}`); report.push(line(m)); }
  });
}

process.on('exit', () => {
  writeFileSync(join(outDir, 'perf.txt'), `${report.join('\n')}\n`);
});
await r.run();
