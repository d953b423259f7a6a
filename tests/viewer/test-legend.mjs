// viewer_legend: the legend hides and shows series — the number of series
// drawn goes down and the pixels of the hidden series' colour disappear.
import { runner, capture, load, stats, pixels, colorOf, readJsonl, subtaskLines } from './lib.mjs';

const r = runner('legend');

r.test('hide-subtask-and-operator', async ({ page, check }) => {
  const path = capture.demo();
  const job = readJsonl(path)[0];
  await load(page, [path]);
  const s0 = await subtaskLines(page);
  const c0 = s0.captures[0];
  // A multi-subtask operator that is not the last one drawn: its own lines
  // are visible where nothing else covers them.
  const op = job.operators.find((o) => o.parallelism > 1 && o.kind === 'timestamps') || job.operators.find((o) => o.parallelism > 1);
  const col = await colorOf(page, 0, op.name, 1);
  const px0 = await pixels(page, 'canvas.chart', null, [col]);
  check(px0.counts[0] > 40, `${op.name}[1] (${col}) is on the canvas: ${px0.counts[0]} pixels`);

  const btn = page.locator(`.legend button.lg-sub[data-op="${op.name}"][data-sub="1"]`);
  check(await btn.getAttribute('aria-pressed') === 'true', 'the subtask button starts pressed');
  await btn.click();
  await page.waitForTimeout(150);
  const s1 = await stats(page);
  check(s1.captures[0].drawn.output === c0.drawn.output - 1, `drawn output series ${c0.drawn.output} -> ${s1.captures[0].drawn.output}`);
  const px1 = await pixels(page, 'canvas.chart', null, [col]);
  check(px1.counts[0] === 0, `hidden ${op.name}[1]: its colour ${col} should be gone, ${px1.counts[0]} pixels left`);
  check(await btn.getAttribute('aria-pressed') === 'false', 'the button shows it is off');

  // The whole operator: all its subtasks go.
  const opBtn = page.locator(`.legend button.lg-op[data-op="${op.name}"]`);
  await opBtn.click();
  await page.waitForTimeout(150);
  const s2 = await stats(page);
  check(s2.captures[0].drawn.output === c0.drawn.output - op.parallelism, `operator hidden: ${s2.captures[0].drawn.output}, expected ${c0.drawn.output - op.parallelism}`);
  const cols = [];
  for (let k = 0; k < op.parallelism; k++) cols.push(await colorOf(page, 0, op.name, k));
  const px2 = await pixels(page, 'canvas.chart', null, cols);
  check(px2.counts.every((n) => n === 0), `every subtask colour of ${op.name} gone: ${px2.counts.join(',')}`);

  // And back.
  await opBtn.click();
  await btn.click();
  await page.waitForTimeout(150);
  const s3 = await stats(page);
  check(s3.captures[0].drawn.output === c0.drawn.output, `all shown again: ${s3.captures[0].drawn.output}`);
  const px3 = await pixels(page, 'canvas.chart', null, [col]);
  check(px3.counts[0] === px0.counts[0], `${op.name}[1] pixels back: ${px3.counts[0]} (was ${px0.counts[0]})`);
});

r.test('keyboard', async ({ page, check }) => {
  await load(page, [capture.demo()]);
  const s0 = await subtaskLines(page);
  const first = page.locator('.legend button.lg-sub').first();
  await first.focus();
  await page.keyboard.press('Enter');
  await page.waitForTimeout(150);
  const s1 = await stats(page);
  check(s1.captures[0].drawn.output === s0.captures[0].drawn.output - 1, 'Enter on a focused legend button hides its series');
  const still = await page.evaluate(() => document.activeElement && document.activeElement.matches('.legend button.lg-sub') &&
    document.activeElement.getAttribute('aria-pressed'));
  check(still === 'false', `the focus stays on the toggled button (${still})`);
  await page.keyboard.press(' ');
  await page.waitForTimeout(150);
  check((await stats(page)).captures[0].drawn.output === s0.captures[0].drawn.output, 'Space shows it again');
});

await r.run();
