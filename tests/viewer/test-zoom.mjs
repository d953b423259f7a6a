// viewer_zoom: the mouse wheel and a dragged range zoom, shift-drag and the
// arrow keys pan, and "Reset zoom" (and the 0 key) bring the whole run back;
// the picture changes with the view, and every panel follows it.
import { runner, capture, load, stats, pixels, canvasBox, sameView } from './lib.mjs';

const r = runner('zoom');

const span = (v) => v.t1 - v.t0;

r.test('wheel-drag-reset', async ({ page, check }) => {
  const s0 = await load(page, [capture.a()]);
  const full = s0.view;
  const plot = s0.captures[0].plot;
  const box = await canvasBox(page);
  const before = await pixels(page, 'canvas.chart');
  check(full.t0 < 0 && full.t1 >= s0.captures[0].tEnd, `the initial view ${full.t0}..${full.t1} covers the run (0..${s0.captures[0].tEnd})`);

  // Wheel up over the middle of the timeline zooms in around the pointer.
  const mx = box.x + plot.x + plot.w * 0.5, my = box.y + plot.y + plot.h * 0.5;
  const tAt = full.t0 + (span(full) * 0.5);
  await page.mouse.move(mx, my);
  await page.mouse.wheel(0, -400);
  await page.waitForFunction((w) => window.weirViewer.stats().view.t1 - window.weirViewer.stats().view.t0 < w, span(full) * 0.9);
  const s1 = await stats(page);
  check(span(s1.view) < span(full) * 0.9, `wheel zoomed in: span ${span(full)} -> ${span(s1.view)}`);
  const tAfter = s1.view.t0 + span(s1.view) * 0.5;
  check(Math.abs(tAfter - tAt) < span(full) * 0.01, `the time under the pointer stays put: ${tAt} -> ${tAfter}`);
  const after = await pixels(page, 'canvas.chart');
  check(after.hash !== before.hash, 'the picture changed with the zoom');
  // Wheel down zooms back out.
  await page.mouse.wheel(0, 400);
  await page.waitForTimeout(200);
  const s1b = await stats(page);
  check(span(s1b.view) > span(s1.view) * 1.5, `wheel down zooms out: ${span(s1.view)} -> ${span(s1b.view)}`);

  // Reset.
  await page.click('#reset-zoom');
  await page.waitForTimeout(150);
  const s2 = await stats(page);
  check(sameView(s2.view, full), `reset restores ${JSON.stringify(full)}, got ${JSON.stringify(s2.view)}`);
  const back = await pixels(page, 'canvas.chart');
  check(back.hash === before.hash, 'after reset the picture is the first one again');

  // Drag a range from 25% to 50% of the plot: the view becomes that range.
  const xa = box.x + plot.x + plot.w * 0.25, xb = box.x + plot.x + plot.w * 0.5;
  await page.mouse.move(xa, my);
  await page.mouse.down();
  await page.mouse.move((xa + xb) / 2, my, { steps: 3 });
  await page.mouse.move(xb, my, { steps: 3 });
  await page.mouse.up();
  await page.waitForTimeout(150);
  const s3 = await stats(page);
  const e0 = full.t0 + span(full) * 0.25, e1 = full.t0 + span(full) * 0.5;
  check(Math.abs(s3.view.t0 - e0) < span(full) * 0.005 && Math.abs(s3.view.t1 - e1) < span(full) * 0.005,
    `drag zoom: expected ${e0.toFixed(0)}..${e1.toFixed(0)}, got ${s3.view.t0.toFixed(0)}..${s3.view.t1.toFixed(0)}`);
  // The y axis fits what is visible: a narrower time window, a narrower range.
  check(s3.captures[0].drawn.y1 - s3.captures[0].drawn.y0 < s0.captures[0].drawn.y1 - s0.captures[0].drawn.y0,
    `y range fits the view: ${s0.captures[0].drawn.y0}..${s0.captures[0].drawn.y1} -> ${s3.captures[0].drawn.y0}..${s3.captures[0].drawn.y1}`);

  // Shift-drag pans: same span, shifted by the dragged distance.
  await page.keyboard.down('Shift');
  await page.mouse.move(xb, my);
  await page.mouse.down();
  await page.mouse.move(xa, my, { steps: 4 });
  await page.mouse.up();
  await page.keyboard.up('Shift');
  await page.waitForTimeout(150);
  const s4 = await stats(page);
  const shift = (span(s3.view) * (xb - xa)) / plot.w;
  check(Math.abs(span(s4.view) - span(s3.view)) < 1e-6 * span(s3.view), `pan keeps the span: ${span(s3.view)} -> ${span(s4.view)}`);
  check(Math.abs(s4.view.t0 - (s3.view.t0 + shift)) < span(s3.view) * 0.01, `shift-drag panned by ${shift.toFixed(0)}: ${s3.view.t0.toFixed(0)} -> ${s4.view.t0.toFixed(0)}`);

  // Shift + wheel pans too (a horizontal wheel, as on a touchpad).
  await page.mouse.move(mx, my);
  await page.keyboard.down('Shift');
  await page.mouse.wheel(0, 200);
  await page.keyboard.up('Shift');
  await page.waitForTimeout(150);
  const s4b = await stats(page);
  check(Math.abs(span(s4b.view) - span(s4.view)) < 1e-6 * span(s4.view) && s4b.view.t0 > s4.view.t0,
    `shift+wheel pans right: ${s4.view.t0.toFixed(0)} -> ${s4b.view.t0.toFixed(0)}, span ${span(s4.view).toFixed(0)} -> ${span(s4b.view).toFixed(0)}`);
  await page.mouse.wheel(-200, 0);
  await page.waitForTimeout(150);
  const s4c = await stats(page);
  check(Math.abs(span(s4c.view) - span(s4.view)) < 1e-6 * span(s4.view) && s4c.view.t0 < s4b.view.t0, 'a horizontal wheel pans left');

  // Keyboard: arrows pan, + zooms, 0 resets (with the chart focused).
  await page.locator('canvas.chart').focus();
  await page.keyboard.press('ArrowLeft');
  await page.waitForTimeout(100);
  const s5 = await stats(page);
  check(s5.view.t0 < s4.view.t0 && Math.abs(span(s5.view) - span(s4.view)) < 1e-6 * span(s4.view), 'ArrowLeft pans left');
  await page.keyboard.press('+');
  await page.waitForTimeout(100);
  check(span((await stats(page)).view) < span(s5.view), '+ zooms in');
  await page.keyboard.press('0');
  await page.waitForTimeout(100);
  check(sameView((await stats(page)).view, full), '0 resets');

  // The buttons.
  await page.click('#zoom-in');
  await page.waitForTimeout(100);
  check(span((await stats(page)).view) < span(full), 'the + button zooms in');
  await page.click('#reset-zoom');
  await page.waitForTimeout(100);
  check(sameView((await stats(page)).view, full), 'reset again');
});

r.test('panels-share-the-axis', async ({ page, check }) => {
  // examples/backpressure's capture: a slow sink on the system clock, so it
  // has backpressure samples, which reproducible runs on the virtual clock
  // (where waiting takes no time) do not.
  const s0 = await load(page, [capture.backpressure()]);
  const c = s0.captures[0];
  check(c.drawn.throughput > 0 && c.drawn.backpressure > 0, `throughput (${c.drawn.throughput}) and backpressure (${c.drawn.backpressure}) panels drawn`);
  // Zoom into the second half: the throughput and backpressure panels change too.
  const lower = { x: c.plot.x, y: c.plot.y + c.plot.h, w: c.plot.w, h: c.plot.panelsBottom - c.plot.y - c.plot.h };
  const before = await pixels(page, 'canvas.chart', lower);
  const box = await canvasBox(page);
  await page.mouse.move(box.x + c.plot.x + c.plot.w * 0.5, box.y + c.plot.y + c.plot.h + 40);
  await page.mouse.wheel(0, -600);
  await page.waitForTimeout(200);
  const after = await pixels(page, 'canvas.chart', lower);
  check(before.hash !== after.hash, 'the panels under the timeline follow the zoom');
  check(span((await stats(page)).view) < span(s0.view), 'wheel over the throughput panel zooms the shared axis');
});

await r.run();
