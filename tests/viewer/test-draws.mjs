// viewer_draws: loading a capture draws a non-blank chart with one watermark
// series per operator subtask, a topology, a legend and the first table page.
import { runner, capture, load, pixels, colorOf, readJsonl, expectedOutputSeries, subtaskLines } from './lib.mjs';

const r = runner('draws');

r.test('one-capture', async ({ page, check }) => {
  const path = capture.a();
  const events = readJsonl(path);
  await load(page, [path]);
  const s = await subtaskLines(page);
  check(s.messages.every((m) => m.level !== 'error'), `no error expected, got ${JSON.stringify(s.messages)}`);
  const c = s.captures[0];
  check(c && c.events === events.length, `events: viewer ${c && c.events}, file ${events.length}`);
  const expected = expectedOutputSeries(events);
  check(c.series.output === expected, `output watermark series: viewer ${c.series.output}, file implies ${expected}`);
  check(c.drawn.output === expected, `drawn output series: ${c.drawn.output}, expected ${expected}`);
  check(c.frames > 0, 'a frame was drawn');

  // Real pixels of the timeline: drawn, and in many colours.
  const px = await pixels(page, 'canvas.chart', c.plot);
  check(px.ink > px.w * px.h * 0.02, `the timeline is nearly blank: ${px.ink} non-white pixels of ${px.w * px.h}`);
  check(px.distinct > 12, `the timeline has only ${px.distinct} colours`);
  // Each operator's lines are in its colours: count the operators of which
  // at least one subtask colour is really on the canvas.
  const job = events[0];
  const cols = [], owner = [];
  for (const op of job.operators) {
    for (let sub = 0; sub < op.parallelism; sub++) { cols.push(await colorOf(page, 0, op.name, sub)); owner.push(op.name); }
  }
  const inPlot = await pixels(page, 'canvas.chart', c.plot, cols);
  const present = new Set(owner.filter((_, k) => inPlot.counts[k] >= 15));
  check(present.size >= Math.min(4, job.operators.length), `only ${[...present].join(', ') || 'no operator'} have their colours in the timeline`);
  // Lines coincide (a chained sink has its window's watermark), but the
  // subtask drawn last of each group is on top: at least as many distinct
  // subtask colours as there are distinct watermark histories.
  const colours = inPlot.counts.filter((n) => n >= 15).length;
  check(colours >= 5, `only ${colours} subtask colours in the timeline`);

  // A subtask that never emits a watermark sits in the MIN lane, below the
  // plot, and does not squash it: the y range comes from real values only.
  check(Number.isFinite(c.drawn.y0) && Number.isFinite(c.drawn.y1) && c.drawn.y1 > c.drawn.y0, `y range ${c.drawn.y0}..${c.drawn.y1}`);
  const finite = events.filter((e) => e.kind === 'watermark' && typeof e.watermark === 'number').map((e) => e.watermark);
  const lo = Math.min(...finite), hi = Math.max(...finite);
  check(c.drawn.y0 <= lo && c.drawn.y1 >= hi && c.drawn.y1 - c.drawn.y0 < (hi - lo) * 3, `y range ${c.drawn.y0}..${c.drawn.y1} should just cover ${lo}..${hi}`);

  // Topology and legend in the DOM.
  const nodes = await page.locator('.topology .node').count();
  check(nodes === job.operators.length, `topology nodes: ${nodes}, operators: ${job.operators.length}`);
  const chained = job.edges.filter((e) => e.chained).length;
  const labels = await page.locator('.topology text.elabel').allTextContents();
  // A chained edge is a double rail without an arrow; its label names no partitioning.
  const rails = await page.locator('.topology g.edge').evaluateAll((gs) => gs.filter((g) => g.querySelectorAll('path').length === 2 && !g.querySelector('path[marker-end]')).length);
  check(rails === chained, `chained edges drawn as rails: ${rails} of ${chained}`);
  check(labels.filter((t) => /^(hash|rebalance|broadcast|forward)/.test(t)).length === job.edges.length - chained, `channel edge labels: ${labels.join(' | ')}`);
  const subs = await page.locator('.legend button.lg-sub').count();
  const totalSubs = job.operators.reduce((n, o) => n + o.parallelism, 0);
  check(subs === totalSubs, `legend subtask buttons: ${subs}, subtasks: ${totalSubs}`);
  const rows = await page.locator('#table-body tr').count();
  check(rows === Math.min(200, events.length) && s.table.rows === rows, `table rows: DOM ${rows}, hook ${s.table.rows}`);
  // Help opens and says what the marks mean.
  await page.click('#help-toggle');
  check(await page.locator('#help').isVisible(), 'the help panel opens');
  check((await page.locator('#help').innerText()).includes('late element'), 'the help explains late elements');
});

r.test('hover-tooltip', async ({ page, check }) => {
  const path = capture.a();
  await load(page, [path]);
  // Hover exactly on a window subtask's line, where the file says it is.
  const events = readJsonl(path);
  const wms = events.filter((e) => e.kind === 'watermark' && e.input === undefined && typeof e.watermark === 'number' && e.op === events[0].edges.find((x) => !x.chained).to);
  check(wms.length > 4, 'the capture has watermarks after a channel');
  // A watermark that is the last of its subtask at its time: the line shows
  // the value it ends that time with (several can leave at one time).
  const shown = wms.filter((e, i) => !wms.slice(i + 1).some((x) => x.t === e.t && x.subtask === e.subtask));
  const w = shown[Math.floor(shown.length / 2)];
  const box = await page.locator('canvas.chart').boundingBox();
  const p = await page.evaluate(([t, v]) => window.weirViewer.pixelOf(0, t, v), [w.t + 1, w.watermark]);
  await page.mouse.move(box.x + p.x, box.y + p.y);
  const tip = page.locator('#tooltip');
  await tip.waitFor({ state: 'visible', timeout: 5000 });
  const text = await tip.innerText();
  check(text.includes('watermark'), `tooltip: ${text}`);
  check(text.replace(/,/g, '').includes(String(w.watermark)), `tooltip should show the exact watermark ${w.watermark}: ${text}`);
  check(/held back by/.test(text), `tooltip should say which channel holds the watermark back: ${text}`);
});

await r.run();
