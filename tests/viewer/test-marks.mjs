// viewer_marks: what the timeline's marks and panels must not hide.
//   - weir demo's lateness run sends the same late elements, at the same
//     (arrival, timestamp), to a window that drops them and to one that
//     sends them to the side output: both marks are drawn (real pixels of
//     both colours), on-time and late firings too, and the tooltip at such
//     a spot lists every mark there.
//   - the throughput scale is not set by the burst at the end of input: the
//     steady rate stays readable, and the panel says the scale is clipped.
//   - a line in the MIN lane that jumps to MAX at the end does not paint a
//     full-height bar over the plot.
//   - the x axis never says "-0".
//   - the backpressure panel's title stays readable over its bars.
import { runner, capture, load, stats, pixels, colorOf, readJsonl, canvasBox } from './lib.mjs';

const r = runner('marks');
const MARK = { fire: '#1f2328', lateFire: '#e36209', dropped: '#cf222e', side: '#8250df' };

r.test('dropped-and-side-output-both-drawn', async ({ page, check }) => {
  const path = capture.demo();
  const events = readJsonl(path);
  const late = events.filter((e) => e.kind === 'late');
  const dropped = late.filter((e) => e.action === 'dropped');
  const side = late.filter((e) => e.action !== 'dropped');
  check(dropped.length > 0 && side.length > 0, `the capture has both kinds: ${dropped.length} dropped, ${side.length} side output`);
  // The point of the test: they coincide.
  const key = (e) => `${e.t}/${e.timestamp}`;
  const sideAt = new Set(side.map(key));
  const twins = dropped.filter((e) => sideAt.has(key(e)));
  check(twins.length > 0, 'some dropped elements sit exactly where side-output ones do');

  const s = await load(page, [path]);
  const c = s.captures[0];
  const m = c.drawn.marks;
  check(m.dropped > 0 && m.side > 0 && m.fire > 0 && m.lateFire > 0, `every kind of mark drawn: ${JSON.stringify(m)}`);
  const px = await pixels(page, 'canvas.chart', c.plot, [MARK.dropped, MARK.side, MARK.lateFire], 6);
  check(px.counts[0] > 20, `dropped (red) pixels in the timeline: ${px.counts[0]}`);
  check(px.counts[1] > 20, `side-output (violet) pixels in the timeline: ${px.counts[1]}`);
  check(px.counts[2] > 20, `late-firing (orange) pixels in the timeline: ${px.counts[2]}`);

  // Zoomed in around one coinciding pair: both colours within its 15x15 box,
  // and an on-time dot where an on-time firing is.
  const e = twins[Math.floor(twins.length / 2)];
  const box = await canvasBox(page);
  const plot = c.plot;
  let p = await page.evaluate(([t, v]) => window.weirViewer.pixelOf(0, t, v), [e.t, e.timestamp]);
  await page.mouse.move(box.x + p.x, box.y + plot.y + plot.h / 2);
  for (let k = 0; k < 4; k++) { await page.mouse.wheel(0, -500); await page.waitForTimeout(120); }
  await page.waitForTimeout(200);
  p = await page.evaluate(([t, v]) => window.weirViewer.pixelOf(0, t, v), [e.t, e.timestamp]);
  const near = await pixels(page, 'canvas.chart', { x: p.x - 7, y: p.y - 7, w: 15, h: 15 }, [MARK.dropped, MARK.side], 6);
  check(near.counts[0] > 3 && near.counts[1] > 3, `at (${e.t}, ${e.timestamp}) both marks show: red ${near.counts[0]}, violet ${near.counts[1]}`);

  // The tooltip names both events (and both operators).
  await page.mouse.move(box.x + p.x, box.y + p.y);
  const tip = page.locator('#tooltip');
  await tip.waitFor({ state: 'visible', timeout: 5000 });
  const text = await tip.innerText();
  check(/late elements? dropped/.test(text) && /late elements? sent to the side output/.test(text), `the tooltip lists both late elements: ${text}`);
  check(text.includes(e.op) && text.includes(side.find((x) => key(x) === key(e)).op), `both operators named: ${text}`);
  check(/\d+ marks here/.test(text), `the tooltip says how many marks are here: ${text}`);

});

r.test('throughput-scale-ignores-the-burst', async ({ page, check }) => {
  const path = capture.a();
  const events = readJsonl(path);
  const rates = events.filter((e) => e.kind === 'throughput' && e.op === 'timestamps' && e.interval_ms > 0).map((e) => e.out * 1000 / e.interval_ms);
  rates.sort((x, y) => x - y);
  const steady = rates[Math.floor(rates.length / 2)];
  const s = await load(page, [path]);
  const tp = s.captures[0].drawn.tp;
  check(steady > 0, `the timestamps operator's steady rate: ${steady}/s`);
  check(tp.max > steady * 5, `the capture has a burst far above the steady rate (${tp.max}/s vs ${steady}/s)`);
  check(tp.clipped && tp.top < tp.max, `the scale is clipped below the burst: top ${tp.top}, max ${tp.max}`);
  check(steady / tp.top > 0.25, `the steady rate sits at least a quarter up the panel: ${steady} of ${tp.top}`);
  check(/scale clipped/.test(tp.title), `the panel says it is clipped: ${tp.title}`);
  // The steady lines are really drawn above the bottom of the panel (the
  // subtasks' lines coincide: whichever is drawn last shows).
  const job = events[0];
  const cols = [];
  for (const name of ['generator', 'timestamps']) {
    const op = job.operators.find((o) => o.name === name);
    for (let k = 0; k < op.parallelism; k++) cols.push(await colorOf(page, 0, name, k));
  }
  const panel = s.captures[0].plot.tp;
  // The lines are 1.5 px wide, between pixel rows: their pixels are blends, hence the tolerance.
  const upper = await pixels(page, 'canvas.chart', { x: panel.x, y: panel.y + 2, w: panel.w, h: panel.h * 0.75 }, cols, 30);
  const n = upper.counts.reduce((x, y) => x + y, 0);
  check(n > 200, `the generator's and timestamps' throughput lines in the upper three quarters of the panel: ${n} pixels`);
});

r.test('no-watermark-until-the-end', async ({ page, check }) => {
  // The generator reports no watermark until MAX at the end of input: that
  // is drawn and said as such — a ▲ in the MAX lane where MAX came, and the
  // words — not as a line stuck in the MIN lane, and no bar across the plot.
  const path = capture.a();
  const job = readJsonl(path)[0];
  const gen = job.operators.find((o) => o.name === 'generator');
  const s = await load(page, [path]);
  const plot = s.captures[0].plot;
  const cols = [];
  for (let k = 0; k < gen.parallelism; k++) cols.push(await colorOf(page, 0, 'generator', k));
  const inside = await pixels(page, 'canvas.chart', { x: plot.x, y: plot.y + plot.lane + 1, w: plot.w, h: plot.h - 2 * plot.lane - 2 }, cols, 3);
  const lane = await pixels(page, 'canvas.chart', { x: plot.x, y: plot.y + plot.h - plot.lane, w: plot.w, h: plot.lane }, cols, 3);
  const total = inside.counts.reduce((a, b) => a + b, 0);
  const top = await pixels(page, 'canvas.chart', { x: plot.x, y: plot.y, w: plot.w, h: plot.lane }, cols, 3);
  check(lane.counts.every((n) => n < 5), `the generator draws nothing in the MIN lane: ${lane.counts.join(', ')}`);
  check(top.counts.some((n) => n > 10), `its ▲ is in the MAX lane: ${top.counts.join(', ')}`);
  check(total < 20, `no solid bar of the generator's colours across the plot: ${inside.counts.join(', ')} pixels`);
  const ends = await page.evaluate(() => [...document.querySelectorAll('.legend .row')].map((r) => r.textContent).find((t) => t.startsWith('generator')));
  check(/no watermark until the end of input/.test(ends), `the legend says so: ${ends}`);
  const said = await page.evaluate(() => window.weirViewer.stats().captures[0].drawn);
  check(said.ends && said.ends.some((e) => /generator: no watermark until the end of input/.test(e.text)), `and the chart: ${JSON.stringify(said.ends)}`);
});

r.test('x-axis-never-minus-zero', async ({ page, check }) => {
  const s0 = await load(page, [capture.a()]);
  check(s0.view.t0 < 0, `the initial view starts before 0 (${s0.view.t0}), where a tick at -0 can fall`);
  check(s0.captures[0].drawn.xLabels.every((l) => !/^-0([^.\d]|$)/.test(l)), `labels: ${s0.captures[0].drawn.xLabels.join(' | ')}`);
  // Zoomed in around t = 0, where the labels are in ms.
  const box = await canvasBox(page);
  const p = await page.evaluate(() => window.weirViewer.pixelOf(0, 0, 0));
  await page.mouse.move(box.x + p.x, box.y + s0.captures[0].plot.y + 100);
  for (let k = 0; k < 10; k++) {
    await page.mouse.wheel(0, -500);
    await page.waitForTimeout(80);
    const v = (await stats(page)).view;
    if (v.t1 - v.t0 < 3000) break;
  }
  await page.waitForTimeout(150);
  const s1 = await stats(page);
  const labels = s1.captures[0].drawn.xLabels;
  check(s1.view.t0 < 0 && s1.view.t1 > 0, `the zoomed view still holds 0: ${s1.view.t0}..${s1.view.t1}`);
  check(labels.includes('0 ms'), `a "0 ms" label: ${labels.join(' | ')}`);
  check(labels.every((l) => !/^-0 /.test(l)), `no "-0" label: ${labels.join(' | ')}`);
});

r.test('backpressure-title-over-the-bars', async ({ page, check }) => {
  const s = await load(page, [capture.backpressure()]);
  const c = s.captures[0];
  check(c.drawn.backpressure > 0, `backpressure drawn: ${c.drawn.backpressure}`);
  const bp = c.plot.bp;
  // The title's label: 4 px in, 3 px down, about 250 px wide. Bars under it
  // would show as saturated pixels; the label's text is grey.
  const region = { x: bp.x + 6, y: bp.y + 4, w: 240, h: 12 };
  const coloured = await page.evaluate(({ r }) => {
    const cv = document.querySelector('canvas.chart');
    const d = cv.getContext('2d').getImageData(r.x, r.y, r.w, r.h).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (Math.max(d[i], d[i + 1], d[i + 2]) - Math.min(d[i], d[i + 1], d[i + 2]) > 40) n++;
    return n;
  }, { r: region });
  // And the bars are really there, right under the title.
  const under = await pixels(page, 'canvas.chart', { x: bp.x + 6, y: bp.y + 18, w: 240, h: bp.h - 22 });
  check(under.ink > 200, `bars fill the panel under the title: ${under.ink} pixels`);
  check(coloured < 10, `the title's label is not covered by bars: ${coloured} coloured pixels in it`);
});

await r.run();
