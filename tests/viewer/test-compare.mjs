// viewer_compare: two captures are drawn one above the other on one shared
// time axis (zooming one zooms both), and either can be shown alone. At
// 1600x1000 the two cards fit the screen (more room for the timeline with
// the lower panels folded), one hover cursor moves in both charts at the
// same processing time, each chart says its longest stall ("stuck 20.0 s
// at 14,639, held by timestamps[2]" against "2.2 s"), and the event table
// follows the card the pointer rests in.
import { runner, capture, load, stats, pixels, canvasBox, sameView } from './lib.mjs';

const r = runner('compare');

r.test('two-timelines', async ({ page, check }) => {
  const a = capture.a(), b = capture.b();
  const s = await load(page, [a, b]);
  check(s.captures.length === 2, `two captures loaded: ${s.captures.length}`);
  const canvases = page.locator('section.capture:not([hidden]) canvas.chart');
  check(await canvases.count() === 2, `two timelines shown: ${await canvases.count()}`);
  const boxA = await canvasBox(page, 0), boxB = await canvasBox(page, 1);
  check(boxB.y >= boxA.y + boxA.height - 1 && Math.abs(boxA.x - boxB.x) < 1 && Math.abs(boxA.width - boxB.width) < 1,
    `one above the other, same width: ${JSON.stringify(boxA)} / ${JSON.stringify(boxB)}`);
  for (const i of [0, 1]) {
    const c = s.captures[i];
    check(c.frames > 0 && c.drawn.output > 0, `${c.name} drawn with ${c.drawn && c.drawn.output} series`);
    const px = await pixels(page, { sel: 'canvas.chart', index: i }, c.plot);
    check(px.ink > px.w * px.h * 0.02, `${c.name}'s timeline is not blank (${px.ink} pixels)`);
  }
  // Same x mapping: the same t falls at the same x in both charts.
  const xs = await page.evaluate(() => [0, 1].map((i) => window.weirViewer.pixelOf(i, 5000, 0).x));
  check(Math.abs(xs[0] - xs[1]) < 0.5, `t=5000 at x ${xs[0]} and ${xs[1]}`);
  // The two runs differ (that is the point of comparing).
  const p0 = await pixels(page, { sel: 'canvas.chart', index: 0 }, s.captures[0].plot);
  const p1 = await pixels(page, { sel: 'canvas.chart', index: 1 }, s.captures[1].plot);
  check(p0.hash !== p1.hash, 'the two pictures differ');

  // Zooming the lower chart zooms both.
  const plot = s.captures[1].plot;
  const h0 = [p0.hash, p1.hash];
  await canvases.nth(1).scrollIntoViewIfNeeded();
  const boxB2 = await canvasBox(page, 1);
  await page.mouse.move(boxB2.x + plot.x + plot.w * 0.4, boxB2.y + plot.y + plot.h / 2);
  await page.mouse.wheel(0, -500);
  await page.waitForTimeout(200);
  const s2 = await stats(page);
  check(s2.view.t1 - s2.view.t0 < (s.view.t1 - s.view.t0) * 0.8, 'zoomed');
  const q0 = await pixels(page, { sel: 'canvas.chart', index: 0 }, s.captures[0].plot);
  const q1 = await pixels(page, { sel: 'canvas.chart', index: 1 }, s.captures[1].plot);
  check(q0.hash !== h0[0] && q1.hash !== h0[1], 'both charts redrawn for the shared zoom');
  const xs2 = await page.evaluate((t) => [0, 1].map((i) => window.weirViewer.pixelOf(i, t, 0).x), (s2.view.t0 + s2.view.t1) / 2);
  check(Math.abs(xs2[0] - xs2[1]) < 0.5, 'still the same x mapping');
  await page.click('#reset-zoom');
  await page.waitForTimeout(150);
  check(sameView((await stats(page)).view, s.view), 'reset restores the shared view');

  // Only one of them.
  await page.selectOption('#opt-layout', '1');
  await page.waitForTimeout(150);
  check(await page.locator('section.capture:not([hidden]) canvas.chart').count() === 1, 'one timeline when one is chosen');
  const s3 = await stats(page);
  check(!s3.captures[0].shown && s3.captures[1].shown, 'the second one is the one shown');
  await page.selectOption('#opt-layout', 'all');
  await page.waitForTimeout(150);
  check(await page.locator('section.capture:not([hidden]) canvas.chart').count() === 2, 'both again');

  // The table follows the capture chosen for it.
  await page.selectOption('#table-capture', '1');
  await page.waitForFunction(() => window.weirViewer.stats().table.capture !== undefined);
  const t = (await stats(page)).table;
  check(t.capture === s.captures[1].name && t.total === s.captures[1].events, `table of the second capture: ${JSON.stringify(t)}`);
});

r.test('compare-mode', async ({ page, check }) => {
  await page.setViewportSize({ width: 1600, height: 1000 });
  const s = await load(page, [capture.a(), capture.b()]);
  await page.waitForTimeout(300);
  const cards = await page.locator('section.capture').evaluateAll((cs) => cs.map((c) => c.getBoundingClientRect().bottom));
  check(cards.length === 2 && cards.every((b) => b <= 1000), `both cards fit 1600x1000: bottoms ${cards.join(', ')}`);
  // The shared cursor.
  const c0 = s.captures[0];
  const box0 = await canvasBox(page, 0);
  for (const f of [0.3, 0.7]) {
    await page.mouse.move(box0.x + c0.plot.x + c0.plot.w * f, box0.y + c0.plot.y + 40);
    await page.waitForTimeout(120);
    const t = await stats(page);
    const xs = t.captures.map((c) => c.drawn.cursorX);
    check(xs[0] !== null && Math.abs(xs[0] - xs[1]) < 0.5 && Math.abs(xs[0] - (c0.plot.x + c0.plot.w * f)) < 1.5, `the cursor at the same x in both charts: ${xs.join(', ')}`);
    const px = await pixels(page, { sel: 'canvas.cursor', index: 1 }, { x: xs[1] - 1, y: c0.plot.y + 20, w: 3, h: 100 });
    check(px.ink > 50, `the cursor is drawn in the lower chart: ${px.ink} pixels`);
  }
  // Each chart says its stall.
  const t = await stats(page);
  const notes = t.captures.map((c) => c.drawn.stallNote && c.drawn.stallNote.text);
  check(/stuck 20\.0 s at 14,639, held by timestamps\[2\]/.test(notes[0] || ''), `the first chart's stall: ${notes[0]}`);
  check(/stuck 2\.2 s at 14,639, held by timestamps\[2\]/.test(notes[1] || ''), `the second chart's stall: ${notes[1]}`);
  // The table follows the card under the pointer (after a moment there).
  const box1 = await canvasBox(page, 1);
  await page.mouse.move(box1.x + 200, box1.y + 60);
  await page.waitForTimeout(500);
  check((await stats(page)).table.capture === s.captures[1].name, `the table follows the lower card: ${(await stats(page)).table.capture}`);
  await page.mouse.move(box0.x + 200, box0.y + 60);
  await page.waitForTimeout(500);
  check((await stats(page)).table.capture === s.captures[0].name, `and back: ${(await stats(page)).table.capture}`);
  // The lower panels fold away: the timeline gets their room.
  await page.uncheck('#opt-panels');
  await page.waitForTimeout(200);
  const u = await stats(page);
  check(u.captures.every((c, i) => c.plot.tp.h === 0 && c.plot.h > s.captures[i].plot.h), `without the panels the timelines grow: ${u.captures.map((c) => c.plot.h).join(', ')}`);
  const cards2 = await page.locator('section.capture').evaluateAll((cs) => cs.map((c) => c.getBoundingClientRect().bottom));
  check(cards2.every((b) => b <= 1000), `and still fit: ${cards2.join(', ')}`);
});

r.test('add-to-loaded', async ({ page, check }) => {
  await load(page, [capture.a()]);
  const s = await load(page, [capture.b()], { input: '#file-add' });
  check(s.captures.length === 2, `"Add…" keeps the first capture: ${s.captures.map((c) => c.name).join(', ')}`);
  await page.locator('section.capture header button.close').first().click();
  await page.waitForTimeout(150);
  const s2 = await stats(page);
  check(s2.captures.length === 1 && s2.captures[0].name === s.captures[1].name, 'closing one leaves the other');
});

await r.run();
