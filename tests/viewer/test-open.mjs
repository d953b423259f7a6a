// viewer_open: the two ways to open captures that need no file picker.
//   - the report.html that `weir demo` itself writes (tools/report.c) opens
//     straight to the pictures of the demo's three captures;
//   - files dropped on the page (a real drop event carrying a DataTransfer
//     with File objects, as a browser makes when files are dragged in from
//     the desktop) load, replacing what was loaded, or added with Shift.
import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runner, capture, stats, pixels, readJsonl } from './lib.mjs';

const r = runner('open');

r.test('report-from-weir-demo', async ({ check, open }) => {
  const report = capture.report();
  const dir = dirname(report);
  const names = ['idle-without-idleness.jsonl', 'idle-with-idleness.jsonl', 'lateness.jsonl'];
  const html = readFileSync(report, 'utf8');
  check(html.split('<script id="weir-embedded-captures" type="application/json">').length === 2, 'the report holds the captures element once');
  const page = await open(pathToFileURL(report).href);
  await page.waitForFunction((n) => { const s = window.weirViewer.stats(); return !s.loading && s.captures.length === n && s.captures.every((c) => c.frames > 0); },
    names.length, { timeout: 60000 });
  const s = await stats(page);
  check(s.captures.map((c) => c.name).join(', ') === names.join(', '), `the demo's captures, in order: ${s.captures.map((c) => c.name).join(', ')}`);
  check(s.messages.every((m) => m.level !== 'error'), `no errors: ${JSON.stringify(s.messages)}`);
  check((await page.title()).startsWith('weir report'), `title: ${await page.title()}`);
  check(await page.locator('#empty').isHidden(), 'no "open a capture" prompt');
  for (let i = 0; i < names.length; i++) {
    const file = readJsonl(join(dir, names[i]));
    check(s.captures[i].events === file.length, `${names[i]}: ${s.captures[i].events} events embedded, the file next to the report has ${file.length}`);
    const px = await pixels(page, { sel: 'canvas.chart', index: i }, s.captures[i].plot);
    check(px.ink > px.w * px.h * 0.02, `${names[i]} drawn (${px.ink} pixels)`);
  }
  const lateness = s.captures[2].drawn.marks;
  check(lateness.dropped > 0 && lateness.side > 0, `the lateness run's late elements drawn: ${JSON.stringify(lateness)}`);
  await page.screenshot({ path: join(process.env.WEIR_VIEWER_OUT || 'viewer-out', 'open-weir-demo-report.png'), fullPage: false });
  if (page.problems.length) check(false, page.problems.join('; '));
  await page.context().close();
});

// Builds a DataTransfer with the files in the page and fires the drag events
// a real drop fires: dragenter and dragover on the way in, then drop.
async function drop(page, files, { shift = false } = {}) {
  await page.evaluate(async ({ files, shift }) => {
    const dt = new DataTransfer();
    for (const f of files) dt.items.add(new File([f.text], f.name, { type: '' }));
    const at = document.querySelector('main');
    const fire = (type) => at.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true, shiftKey: shift }));
    fire('dragenter');
    fire('dragover');
    window.__overlayShown = !document.getElementById('drop-overlay').hidden;
    fire('drop');
  }, { files: files.map((p) => ({ name: basename(p), text: readFileSync(p, 'utf8') })), shift });
}
async function loaded(page, n) {
  await page.waitForFunction((n) => { const s = window.weirViewer.stats(); return !s.loading && s.captures.length === n && s.captures.every((c) => c.frames > 0); },
    n, { timeout: 60000, polling: 100 });
  return stats(page);
}

r.test('drag-and-drop', async ({ page, check }) => {
  const a = capture.a(), b = capture.b(), demo = capture.demo();
  await drop(page, [a, b]);
  check(await page.evaluate(() => window.__overlayShown), 'dragging files over the page shows the drop overlay');
  let s = await loaded(page, 2);
  check(await page.locator('#drop-overlay').isHidden(), 'the overlay goes when the files are dropped');
  check(s.captures.map((c) => c.name).join(', ') === [a, b].map((p) => basename(p)).join(', '), `both dropped files loaded: ${s.captures.map((c) => c.name).join(', ')}`);
  check(s.captures[0].events === readJsonl(a).length, `${basename(a)}: ${s.captures[0].events} events`);
  check(await page.locator('section.capture:not([hidden]) canvas.chart').count() === 2, 'two timelines');
  check(s.messages.every((m) => m.level !== 'error'), `no errors: ${JSON.stringify(s.messages)}`);
  // Shift + drop adds.
  await drop(page, [demo], { shift: true });
  s = await loaded(page, 3);
  check(s.captures[2].name === basename(demo), `Shift + drop adds ${basename(demo)}: ${s.captures.map((c) => c.name).join(', ')}`);
  // A plain drop replaces.
  await drop(page, [demo]);
  s = await loaded(page, 1);
  check(s.captures[0].name === basename(demo) && s.captures[0].frames > 0, `a plain drop replaces what was loaded: ${s.captures.map((c) => c.name).join(', ')}`);
  // Dragging something that is not files (text) is ignored.
  await page.evaluate(() => {
    const dt = new DataTransfer();
    dt.setData('text/plain', 'hello');
    document.querySelector('main').dispatchEvent(new DragEvent('dragenter', { dataTransfer: dt, bubbles: true, cancelable: true }));
  });
  check(await page.locator('#drop-overlay').isHidden(), 'dragged text does not show the overlay');
});

await r.run();
