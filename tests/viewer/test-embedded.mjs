// viewer_embedded: a report made by embed.mjs (the contract `weir demo`
// follows, docs/VIEWER.md) opens straight to the pictures of its captures,
// with no file chosen, even when a capture holds "</script>" or "<!--".
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execFileSync, spawnSync } from 'node:child_process';
import { runner, capture, stats, pixels, outDir, viewerPath, here } from './lib.mjs';

const r = runner('embedded');

function makeReport(name, files) {
  const out = join(outDir, name);
  execFileSync(process.execPath, [join(here, 'embed.mjs'), viewerPath, out, ...files], { stdio: 'pipe' });
  return out;
}

r.test('report-opens-to-pictures', async ({ check, open }) => {
  const a = capture.a(), b = capture.b();
  // A third capture whose key holds the two sequences that would end or
  // confuse a <script> element if they were not escaped.
  const lines = readFileSync(a, 'utf8').split('\n');
  const k = lines.findIndex((l) => l.includes('"kind":"window_fire"'));
  const ev = JSON.parse(lines[k]);
  ev.key = '</script><!--x';
  lines[k] = JSON.stringify(ev);
  const tricky = join(outDir, 'tricky-keys.jsonl');
  writeFileSync(tricky, lines.join('\n'));
  const report = makeReport('report.html', [a, b, tricky]);
  const html = readFileSync(report, 'utf8');
  check(html.split('<script id="weir-embedded-captures" type="application/json">').length === 2, 'the report holds the element once');
  check(!html.includes('"</script>') && html.includes('\\u003c/script>'), 'the capture text is escaped');

  const page = await open(pathToFileURL(report).href);
  await page.waitForFunction(() => { const s = window.weirViewer.stats(); return s.captures.length === 3 && s.captures.every((c) => c.frames > 0); }, null, { timeout: 60000 });
  const s = await stats(page);
  const names = [a, b, tricky].map((p) => basename(p)).join(', ');
  check(s.captures.map((c) => c.name).join(', ') === names, `embedded names: ${s.captures.map((c) => c.name).join(', ')}, expected ${names}`);
  check(s.messages.every((m) => m.level !== 'error'), `no errors: ${JSON.stringify(s.messages)}`);
  check(await page.locator('section.capture:not([hidden]) canvas.chart').count() === 3, 'three timelines, one above the other');
  check(await page.locator('#empty').isHidden(), 'no "open a capture" prompt');
  for (let i = 0; i < 3; i++) {
    const px = await pixels(page, { sel: 'canvas.chart', index: i }, s.captures[i].plot);
    check(px.ink > px.w * px.h * 0.02, `timeline ${i} drawn (${px.ink} pixels)`);
  }
  check((await page.title()).startsWith('weir report'), `title: ${await page.title()}`);
  // The tricky key survived intact.
  await page.selectOption('#table-capture', '2');
  await page.fill('#f-key', '</script><!--x');
  await page.waitForFunction(() => { const t = window.weirViewer.stats().table; return t && !t.busy && t.matched === 1; }, null, { timeout: 5000 }).catch(() => {});
  const t = (await stats(page)).table;
  check(t.capture === 'tricky-keys.jsonl' && t.matched === 1, `the key with </script> is found: ${JSON.stringify(t)}`);
  await page.screenshot({ path: join(outDir, 'embedded-report.png'), fullPage: false });
  if (page.problems.length) check(false, page.problems.join('; '));
  await page.context().close();
});

r.test('embed-refuses-without-marker', async ({ check }) => {
  const bogus = join(outDir, 'no-marker.html');
  writeFileSync(bogus, '<!doctype html><title>x</title><p>no marker here</p>');
  const res = spawnSync(process.execPath, [join(here, 'embed.mjs'), bogus, join(outDir, 'x.html'), capture.a()], { encoding: 'utf8' });
  check(res.status === 2 && /exactly once/.test(res.stderr), `exit ${res.status}: ${res.stderr}`);
  // And the plain viewer has no embedded captures: it opens to the prompt.
  const html = readFileSync(viewerPath, 'utf8');
  check(html.split('<script id="weir-embedded-captures" type="application/json">[]</script>').length === 2, 'viewer/index.html holds the empty marker exactly once');
});

r.test('plain-viewer-prompts', async ({ page, check }) => {
  check(await page.locator('#empty').isVisible(), 'without captures the viewer asks for one');
  const s = await stats(page);
  check(s.captures.length === 0 && s.messages.length === 0, 'nothing loaded, nothing wrong');
});

await r.run();
