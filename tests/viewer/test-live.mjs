// viewer_live: the viewer in live mode, served by a running job (docs/LIVE.md).
// `weir sql --serve` runs live.sql (about 12 s on the system clock); the page
// at / subscribes to /events and draws while the job runs: the events and
// the drawn run grow, the view follows the newest time, the status names the
// live stream, and when the job ends the status says so and the whole run is
// drawn, with no console errors. File mode is the other tests' business.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { runner, stats, here, pixels } from './lib.mjs';

const r = runner('live');
const build = process.env.WEIR_BUILD || join(here, '..', '..', 'build', 'release');

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); });
  });
}
const sleep = (ms) => new Promise((res) => setTimeout(res, ms));

r.test('draws-while-the-job-runs', async ({ check, open }) => {
  const port = await freePort();
  const job = spawn(join(build, 'tools', 'weir'), ['sql', '--serve', `127.0.0.1:${port}`, join(here, 'live.sql')],
    { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  job.stderr.on('data', (d) => { stderr += d; });
  job.stdout.on('data', () => {});
  const exited = new Promise((res) => job.on('exit', (code) => res(code)));
  let up = false;
  for (let i = 0; i < 200 && !up; i++) {
    try { up = (await fetch(`http://127.0.0.1:${port}/jobs`)).ok; } catch (e) { await sleep(25); }
  }
  check(up, `the server answered (${stderr})`);
  const page = await open(`http://127.0.0.1:${port}/`);
  // requests to the job's own server are what live mode does
  const own = `http://127.0.0.1:${port}/`;
  const foreign = () => page.problems.filter((p) => !p.startsWith(`network request: ${own}`));
  await page.waitForFunction(() => { const s = window.weirViewer.stats(); return s.live && s.captures.length === 1 && s.captures[0].frames > 0; },
    null, { timeout: 30000, polling: 100 });
  const a = await stats(page);
  check(a.live && !a.live.ended, `live and running: ${JSON.stringify(a.live)}`);
  check(/^live/.test(a.live.status), `the status: ${a.live.status}`);
  await sleep(1500);
  const b = await stats(page);
  check(b.live.events > a.live.events, `events arrive: ${a.live.events} then ${b.live.events}`);
  check(b.captures[0].tEnd > a.captures[0].tEnd, `the run grows: ${a.captures[0].tEnd} ms then ${b.captures[0].tEnd} ms`);
  check(b.view.t1 >= b.captures[0].tEnd, `the view follows the newest time: ${JSON.stringify(b.view)}, tEnd ${b.captures[0].tEnd}`);
  check(b.captures[0].drawn && b.captures[0].drawn.output > 0, `watermark lines drawn: ${JSON.stringify(b.captures[0].drawn && b.captures[0].drawn.output)}`);
  await page.screenshot({ path: join(process.env.WEIR_VIEWER_OUT || 'viewer-out', 'live-running.png'), fullPage: false });
  const px = await pixels(page, { sel: 'canvas.chart', index: 0 }, b.captures[0].plot);
  check(px.ink > 0, `the timeline has ink (${px.ink} pixels)`);
  // Pause: the drawing stops while events still arrive
  await page.click('#live-pause');
  const p0 = await stats(page);
  await sleep(800);
  const p1 = await stats(page);
  check(p1.live.paused && p1.live.parses === p0.live.parses, `paused: ${p0.live.parses} then ${p1.live.parses} parses`);
  await page.click('#live-pause');
  const code = await exited;
  check(code === 0, `weir sql exited ${code}: ${stderr}`);
  await page.waitForFunction(() => { const s = window.weirViewer.stats(); return s.live.ended && !s.loading; }, null, { timeout: 30000, polling: 100 });
  await sleep(800);
  const c = await stats(page);
  check(/the job ended/.test(c.live.status), `the status says the job ended: ${c.live.status}`);
  check(c.captures[0].kinds.summary === 1, `the summary arrived: ${JSON.stringify(c.captures[0].kinds)}`);
  check(c.captures[0].tEnd >= b.captures[0].tEnd, 'the whole run drawn');
  check(c.live.cut === 0 && c.live.gaps === 0, `nothing cut: ${JSON.stringify(c.live)}`);
  check(c.messages.every((m) => m.level !== 'error'), `no errors: ${JSON.stringify(c.messages)}`);
  check(foreign().length === 0, foreign().join('; '));
  page.problems.length = 0;
  await page.context().close();
});

r.run();
