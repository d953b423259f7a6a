// viewer_reading: what makes the picture read right at 1600x1000.
//   - lines: with many subtasks the default is one line per operator (its
//     subtasks folded: their minimum, with a band up to their maximum where
//     they differ): one path per operator, in the operator's colour, not in
//     its subtasks' shades; "one per subtask" brings the subtask lines back.
//   - zoom and pan stay within the run: no wheel, drag or key gets the view
//     past its ends or wider than the whole run.
//   - no text overlaps: the topology's labels (boxes measured in the page)
//     neither overlap one another nor sit on an edge line, names are not cut;
//     the event-time axis labels never overlap the MAX / MIN lane labels; the
//     summary strip's items are apart; the table's t header is one line.
//   - words: "1 worker", a tooltip's "since t = ..." / "since the start", an
//     empty backpressure panel that says why, the help's "the input channel
//     holding the watermark back".
// Bounded: three small captures, about 20 s.
import { runner, capture, load, stats, pixels, colorOf, canvasBox, readJsonl, subtaskLines } from './lib.mjs';

const r = runner('reading');
const boxesApart = (a, b) => a.x + a.w <= b.x + 0.5 || b.x + b.w <= a.x + 0.5 || a.y + a.h <= b.y + 0.5 || b.y + b.h <= a.y + 0.5;
function overlaps(list) {
  const bad = [];
  for (let i = 0; i < list.length; i++) for (let j = i + 1; j < list.length; j++) if (!boxesApart(list[i], list[j])) bad.push(`"${list[i].text}" / "${list[j].text}"`);
  return bad;
}

r.test('one-line-per-operator', async ({ page, check }) => {
  await page.setViewportSize({ width: 1600, height: 1000 });
  const path = capture.a();
  const job = readJsonl(path)[0];
  const s = await load(page, [path]);
  const c = s.captures[0];
  const withWm = new Set(readJsonl(path).filter((e) => e.kind === 'watermark' && e.input === undefined).map((e) => e.op));
  check(c.drawn.lines === 'operator', `many subtasks: one line per operator by default (${c.drawn.lines})`);
  check(c.drawn.output === withWm.size, `one path per operator: ${c.drawn.output}, operators with watermarks ${withWm.size}`);
  const ts = job.operators.find((o) => o.name === 'timestamps');
  const own = await colorOf(page, 0, 'timestamps', null);
  const shades = [await colorOf(page, 0, 'timestamps', 0), await colorOf(page, 0, 'timestamps', ts.parallelism - 1)];
  const px = await pixels(page, 'canvas.chart', c.plot, [own, ...shades], 1);
  check(px.counts[0] > 50, `the timestamps operator's line in its colour ${own}: ${px.counts[0]} pixels`);
  check(px.counts[1] < 5 && px.counts[2] < 5, `not in its subtasks' shades: ${px.counts.slice(1).join(', ')}`);
  // The quiet partition: timestamps[2] sits at 14,639 while the others go on,
  // so the folded line stays there with a band above it; hovering says so.
  const box = await canvasBox(page);
  const p = await page.evaluate(() => window.weirViewer.pixelOf(0, 25000, 14639));
  const band = await page.evaluate(() => window.weirViewer.pixelOf(0, 25000, 20000));
  const inBand = await pixels(page, 'canvas.chart', { x: band.x - 1, y: band.y - 1, w: 3, h: 3 });
  check(inBand.ink > 0, `a band between the lowest and the highest subtask at t = 25 s: ${inBand.ink} pixels`);
  await page.mouse.move(box.x + p.x, box.y + p.y);
  const tip = page.locator('#tooltip');
  await tip.waitFor({ state: 'visible', timeout: 5000 });
  const text = await tip.innerText();
  check(/subtasks folded/.test(text) && /14,639/.test(text), `the tooltip of the folded line: ${text}`);
  const s2 = await subtaskLines(page);
  const n = job.operators.filter((o) => withWm.has(o.name)).reduce((a, o) => a + o.parallelism, 0);
  check(s2.captures[0].drawn.lines === 'subtask' && s2.captures[0].drawn.output === n, `one per subtask: ${s2.captures[0].drawn.output} = ${n}`);
});

r.test('zoom-and-pan-stay-within-the-run', async ({ page, check }) => {
  await page.setViewportSize({ width: 1600, height: 1000 });
  const s0 = await load(page, [capture.a()]);
  const full = s0.view;
  const c = s0.captures[0];
  const box = await canvasBox(page);
  const within = (v) => v.t0 >= full.t0 - 1e-6 && v.t1 <= full.t1 + 1e-6;
  await page.mouse.move(box.x + c.plot.x + c.plot.w / 2, box.y + c.plot.y + 100);
  for (let k = 0; k < 6; k++) { await page.mouse.wheel(0, 800); await page.waitForTimeout(40); }
  await page.waitForTimeout(120);
  check(within((await stats(page)).view), `zoomed out to at most the run: ${JSON.stringify((await stats(page)).view)}, run ${JSON.stringify(full)}`);
  // Zoom in, then pan far past the right end with Shift-drag, the keys and the wheel.
  for (let k = 0; k < 4; k++) { await page.mouse.wheel(0, -500); await page.waitForTimeout(40); }
  await page.keyboard.down('Shift');
  await page.mouse.move(box.x + c.plot.x + c.plot.w * 0.9, box.y + c.plot.y + 100);
  await page.mouse.down();
  await page.mouse.move(box.x + c.plot.x + 5, box.y + c.plot.y + 100, { steps: 5 });
  await page.mouse.up();
  await page.keyboard.up('Shift');
  for (let k = 0; k < 5; k++) { await page.mouse.wheel(200000, 0); await page.waitForTimeout(40); }
  for (let k = 0; k < 5; k++) await page.keyboard.press('ArrowRight');
  await page.waitForTimeout(120);
  let v = (await stats(page)).view;
  check(within(v) && Math.abs(v.t1 - full.t1) < 1, `panned right: stops at the run's end ${JSON.stringify(v)}`);
  for (let k = 0; k < 5; k++) { await page.mouse.wheel(-200000, 0); await page.waitForTimeout(40); }
  for (let k = 0; k < 5; k++) await page.keyboard.press('ArrowLeft');
  await page.waitForTimeout(120);
  v = (await stats(page)).view;
  check(within(v) && Math.abs(v.t0 - full.t0) < 1, `panned left: stops at the run's start ${JSON.stringify(v)}`);
  for (let k = 0; k < 10; k++) await page.keyboard.press('-');
  await page.waitForTimeout(120);
  v = (await stats(page)).view;
  check(within(v), `the − key zooms out to the run at most: ${JSON.stringify(v)}`);
});

r.test('no-text-overlaps', async ({ page, check }) => {
  await page.setViewportSize({ width: 1600, height: 1000 });
  const path = capture.demo();
  const job = readJsonl(path)[0];
  const s = await load(page, [path]);
  // The topology: text boxes apart, none on an edge line, names whole.
  const topo = await page.evaluate(() => {
    const texts = [...document.querySelectorAll('.topology text')].filter((t) => t.textContent).map((t) => {
      const b = t.getBoundingClientRect();
      return { text: t.textContent, x: b.x, y: b.y, w: b.width, h: b.height, edge: t.classList.contains('elabel') };
    });
    const points = [];
    for (const p of document.querySelectorAll('.topology g.edge path')) {
      const len = p.getTotalLength(), m = p.getScreenCTM(), half = (Number(p.getAttribute('stroke-width')) || 1) / 2;
      for (let d = 0; d <= len; d += 2) { const q = p.getPointAtLength(d); points.push({ x: q.x * m.a + m.e, y: q.y * m.d + m.f, half }); }
    }
    return { texts, points };
  });
  check(overlaps(topo.texts).length === 0, `topology labels overlap: ${overlaps(topo.texts).join('; ')}`);
  const onLine = topo.texts.filter((t) => t.edge).filter((t) => topo.points.some((p) => p.x > t.x + 0.5 && p.x < t.x + t.w - 0.5 && p.y + p.half > t.y + 1.5 && p.y - p.half < t.y + t.h - 1.5));
  check(onLine.length === 0, `edge labels on an edge line: ${onLine.map((t) => t.text).join(', ')}`);
  for (const o of job.operators) check(topo.texts.some((t) => t.text === o.name), `${o.name} is written whole`);
  // The chart's axis labels and lane labels.
  const labels = s.captures[0].drawn.labels;
  check(labels.some((l) => l.text === 'MAX') && labels.some((l) => l.text === 'MIN'), 'MAX and MIN lanes labelled');
  check(overlaps(labels).length === 0, `axis labels overlap: ${overlaps(labels).join('; ')}`);
  // Zoomed so that a tick falls next to the MAX lane (y fits the view, so the top tick is close).
  const box = await canvasBox(page);
  const c = s.captures[0];
  await page.mouse.move(box.x + c.plot.x + c.plot.w * 0.3, box.y + c.plot.y + 100);
  for (let k = 0; k < 8; k++) {
    await page.mouse.wheel(0, -300);
    await page.waitForTimeout(60);
    const l = (await stats(page)).captures[0].drawn.labels;
    check(overlaps(l).length === 0, `axis labels overlap after a zoom: ${overlaps(l).join('; ')}`);
  }
  // The strip's items, the table's t header.
  // Each row's label and items, siblings only (an item holds its button).
  const rows = await page.evaluate(() => [...document.querySelectorAll('.strip-row')].map((row) => [...row.querySelectorAll(':scope > .strip-op, :scope > .strip-items > *')].map((e) => {
    const b = e.getBoundingClientRect(); return { text: e.textContent.slice(0, 30), x: b.x, y: b.y, w: b.width, h: b.height };
  })));
  for (const row of rows) check(overlaps(row).length === 0, `strip items overlap: ${overlaps(row).join('; ')}`);
  const th = await page.evaluate(() => { const b = document.querySelector('#sort-t-head').getBoundingClientRect(); const k = document.querySelector('table.events th:nth-child(2)').getBoundingClientRect(); return { t: b.height, kind: k.height }; });
  check(th.t <= th.kind, `the t (ms) header is one line: ${th.t} px high, the kind header ${th.kind}`);
});

r.test('words', async ({ page, check }) => {
  await page.setViewportSize({ width: 1600, height: 1000 });
  const path = capture.a();
  await load(page, [path]);
  const s = await subtaskLines(page);
  const meta = await page.locator('section.capture header .meta').first().innerText();
  check(/\b1 worker\b/.test(meta) && !/1 workers/.test(meta), `the header: ${meta}`);
  check(/virtual clock/.test(s.captures[0].drawn.bpNote || ''), `the empty backpressure panel says why: ${s.captures[0].drawn.bpNote}`);
  await page.click('#help-toggle');
  check(/the input channel holding the watermark back/.test(await page.locator('#help').innerText()), 'the help explains held_by in the UI\'s words');
  await page.click('#help-toggle');
  // A window's watermark: since when, held back by which input channel.
  const box = await canvasBox(page);
  const p = await page.evaluate(() => window.weirViewer.pixelOf(0, 25000, 14639));
  await page.mouse.move(box.x + p.x, box.y + p.y);
  const tip = page.locator('#tooltip');
  await tip.waitFor({ state: 'visible', timeout: 5000 });
  const text = await tip.innerText();
  check(/since t = [\d,]+ ms/.test(text) && !/since t the/.test(text) && !/since t \d/.test(text), `since: ${text}`);
  check(/held back by input channel \d/.test(text) && !/held_by then/.test(text), `held back by: ${text}`);
  // A channel's tooltip (channel watermarks on).
  await page.check('#opt-channels');
  await page.waitForTimeout(150);
  await page.mouse.move(box.x + p.x + 1, box.y + p.y);
  await page.waitForTimeout(100);
  const t2 = await tip.innerText();
  check(!/holds the valve back now (yes|no)/.test(t2) && !/held_by then/.test(t2), `channel words: ${t2}`);
});

await r.run();
