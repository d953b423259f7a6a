// lib.mjs — what every browser test of viewer/index.html shares: launching
// Debian's Chromium through playwright-core (never a downloaded browser),
// opening the viewer from a file:// URL, loading captures through the real
// file input, reading real canvas pixels, screenshots, and a tiny test runner
// that prints what failed and exits non-zero.
//
// The captures are weir's own, written during the test run by the project's
// programs (ctest fixtures, tests/viewer/CMakeLists.txt): `weir demo` (the
// idle pair, lateness.jsonl and report.html), examples/capture (capture.jsonl
// and its msgpack twin), examples/backpressure and tests/viewer/big-capture
// (the 1M-event capture), `weir sql` (long-names.sql), `weir-bench --nexmark`
// (a Nexmark query). Only the malformed files are made here, from those
// captures (malformed()).
//
// Environment (ctest sets all of it):
//   WEIR_VIEWER_OUT       where screenshots and perf.txt go (default ./viewer-out)
//   WEIR_CAPTURES         where the malformed files are made (default ./captures)
//   WEIR_CAPTURE_A/_B     the pair to compare (weir demo's idle-without-idleness /
//                         idle-with-idleness); A is also the single-capture tests' one
//   WEIR_CAPTURE_DEMO     weir demo's lateness.jsonl
//   WEIR_DEMO_REPORT      the report.html weir demo wrote
//   WEIR_CAPTURE_MSGPACK  a msgpack capture, and WEIR_CAPTURE_MSGPACK_JSONL its
//                         JSONL twin (examples/capture)
//   WEIR_CAPTURE_BACKPRESSURE  a capture with backpressure (examples/backpressure)
//   WEIR_CAPTURE_SQL      `weir sql` on long-names.sql: SQL's long operator names
//   WEIR_CAPTURE_NEXMARK  `weir-bench --nexmark q20 --capture`: a Nexmark query's job
//   WEIR_CAPTURE_BIG, WEIR_CAPTURE_BIG_MSGPACK  the 1M-event capture (big-capture)
//   WEIR_BUILD            a weir build folder (default ../../build/release): run by
//                         hand without the variables above, a test runs the programs
//                         of that build itself to make the captures it needs
//   WEIR_VIEWER           the viewer to test (default ../../viewer/index.html)
//   WEIR_CHROMIUM         the browser (default /usr/bin/chromium)

import { chromium } from 'playwright-core';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { execFileSync } from 'node:child_process';

export const here = dirname(fileURLToPath(import.meta.url));
export const outDir = resolve(process.env.WEIR_VIEWER_OUT || join(process.cwd(), 'viewer-out'));
export const viewerPath = resolve(process.env.WEIR_VIEWER || join(here, '..', '..', 'viewer', 'index.html'));
export const capturesDir = resolve(process.env.WEIR_CAPTURES || join(process.cwd(), 'captures'));
const buildDir = resolve(process.env.WEIR_BUILD || join(here, '..', '..', 'build', 'release'));

mkdirSync(outDir, { recursive: true });

// A capture a project program writes, made with the build's programs when
// the environment does not name it (a test started by hand).
function produced(envName, file, make) {
  if (process.env[envName]) return process.env[envName];
  const p = join(capturesDir, file);
  if (!existsSync(p)) {
    mkdirSync(capturesDir, { recursive: true });
    console.log(`${envName} is not set: making ${p} with the programs of ${buildDir}`);
    make();
  }
  return p;
}
const run = (prog, args, cwd) => execFileSync(join(buildDir, prog), args, { cwd: cwd || capturesDir, stdio: 'inherit' });
const demo = () => run('tools/weir', ['demo', '--out', join(capturesDir, 'demo')]);
export const capture = {
  a: () => produced('WEIR_CAPTURE_A', 'demo/idle-without-idleness.jsonl', demo),
  b: () => produced('WEIR_CAPTURE_B', 'demo/idle-with-idleness.jsonl', demo),
  demo: () => produced('WEIR_CAPTURE_DEMO', 'demo/lateness.jsonl', demo),
  report: () => produced('WEIR_DEMO_REPORT', 'demo/report.html', demo),
  msgpack: () => produced('WEIR_CAPTURE_MSGPACK', 'capture.msgpack', () => run('examples/capture', [])),
  msgpackJsonl: () => produced('WEIR_CAPTURE_MSGPACK_JSONL', 'capture.jsonl', () => run('examples/capture', [])),
  backpressure: () => produced('WEIR_CAPTURE_BACKPRESSURE', 'backpressure.jsonl', () => run('examples/backpressure', [])),
  table: () => produced('WEIR_CAPTURE_TABLE', 'table-changelog.jsonl', () => run('examples/table_changelog', [])),
  checkpointsStop: () => produced('WEIR_CAPTURE_CHECKPOINTS_STOP', 'checkpoints-stop.jsonl', () => run('examples/checkpoints', [])),
  checkpointsResume: () => produced('WEIR_CAPTURE_CHECKPOINTS_RESUME', 'checkpoints-resume.jsonl', () => run('examples/checkpoints', [])),
  sql: () => produced('WEIR_CAPTURE_SQL', 'sql-long-names.jsonl',
    () => run('tools/weir', ['sql', '--capture', join(capturesDir, 'sql-long-names.jsonl'), join(here, 'long-names.sql')])),
  nexmark: () => produced('WEIR_CAPTURE_NEXMARK', 'nexmark-q20.jsonl',
    () => run('bench/weir-bench', ['--nexmark', 'q20', '--events', '5000', '--quiet', '--capture',
      join(capturesDir, 'nexmark.jsonl')])),
  big: () => produced('WEIR_CAPTURE_BIG', 'big.jsonl', () => run('tests/viewer/viewer-big-capture', [capturesDir])),
  bigMsgpack: () => produced('WEIR_CAPTURE_BIG_MSGPACK', 'big.msgpack', () => run('tests/viewer/viewer-big-capture', [capturesDir])),
};

// Files that are not (whole) captures, made from the real ones each time
// they are asked for (so they follow the captures of the current build):
//   bad-json.jsonl       the lateness capture's first 30 lines, line 17 broken
//   not-job-first.jsonl  its lines 2..20: the first event is not `job`
//   not-a-capture.txt    plain text
//   truncated.msgpack    capture.msgpack cut in the middle of a string of an
//                        event past its first quarter
//   cut-short.jsonl      the lateness capture cut in the middle of a line, as
//                        a crashed run leaves it (loads, with a warning)
//   checkpoint-aborted.jsonl  examples/checkpoints' stop capture with its
//                        second checkpoint aborted (its end says so, with a
//                        reason) and the capture's last end removed (a
//                        checkpoint still running when the capture ends)
export function malformed(name) {
  const p = join(capturesDir, name);
  mkdirSync(capturesDir, { recursive: true });
  const lines = () => readFileSync(capture.demo(), 'utf8').split('\n').filter((l) => l.trim());
  if (name === 'bad-json.jsonl') {
    const l = lines().slice(0, 30);
    l[16] = '{"kind":"watermark","t":1200,"op":"timestamps" "subtask":1,"watermark":4999}';
    writeFileSync(p, l.join('\n') + '\n');
  } else if (name === 'not-job-first.jsonl') {
    writeFileSync(p, lines().slice(1, 20).join('\n') + '\n');
  } else if (name === 'not-a-capture.txt') {
    writeFileSync(p, 'This is a shopping list, not a capture.\nmilk\neggs\n');
  } else if (name === 'truncated.msgpack') {
    const bytes = readFileSync(capture.msgpack());
    // 0xa9 "watermark": a fixstr of 9 bytes, always inside an event.
    const word = Buffer.from([0xa9, ...Buffer.from('watermark')]);
    const at = bytes.indexOf(word, Math.floor(bytes.length / 4));
    if (at < 0) throw new Error(`no "watermark" string in ${capture.msgpack()}`);
    writeFileSync(p, bytes.subarray(0, at + 4));
  } else if (name === 'cut-short.jsonl') {
    const text = readFileSync(capture.demo(), 'utf8');
    const nl = text.indexOf('\n', Math.floor(text.length * 0.6));
    const next = text.indexOf('\n', nl + 1);
    writeFileSync(p, text.slice(0, nl + 1 + Math.floor((next - nl) / 2)));
  } else if (name === 'checkpoint-aborted.jsonl') {
    const l = readFileSync(capture.checkpointsStop(), 'utf8').split('\n').filter((x) => x.trim());
    const ends = l.map((x, i) => [JSON.parse(x), i]).filter(([e]) => e.kind === 'checkpoint_end');
    if (ends.length < 3) throw new Error(`${capture.checkpointsStop()} has ${ends.length} checkpoint ends, not 3 or more`);
    const [second, at] = ends[1];
    l[at] = JSON.stringify({ ...second, status: 'aborted', bytes: 0, reason: 'not complete after 1 ms (checkpoint.timeout_ms)' });
    l.splice(ends[ends.length - 1][1], 1);
    writeFileSync(p, l.join('\n') + '\n');
  } else throw new Error(`no malformed file ${name}`);
  return p;
}

export async function launch() {
  return chromium.launch({
    executablePath: process.env.WEIR_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
}

// Opens the viewer in a fresh page at 1280x800. Console errors, page errors
// and any request that is not file:// or data: are collected: the viewer
// must fetch nothing and log no errors, and every test checks that at the end.
export async function openViewer(browser, url) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('request', (r) => {
    const u = r.url();
    if (!u.startsWith('file:') && !u.startsWith('data:') && !u.startsWith('blob:')) problems.push(`network request: ${u}`);
  });
  await page.goto(url || pathToFileURL(viewerPath).href);
  await page.waitForFunction(() => !!window.weirViewer);
  page.problems = problems;
  return page;
}

export async function stats(page) { return page.evaluate(() => window.weirViewer.stats()); }

// Loads captures through the file input and waits until the load is over
// and every capture that loaded is drawn (one that failed has a message and
// no card). The input's change handler marks the viewer busy before it
// returns, so the wait cannot see the state from before the load.
export async function load(page, files, { input = '#file-open', timeout = 60000 } = {}) {
  await page.setInputFiles(input, files);
  await page.waitForFunction(() => {
    const s = window.weirViewer.stats();
    return !s.loading && s.captures.every((c) => c.frames > 0);
  }, null, { timeout, polling: 100 });
  return stats(page);
}

// One watermark line per operator subtask (the toolbar's "lines" choice),
// for the tests that look for each subtask's own colour: by default a
// capture with many subtasks folds them into one line per operator.
export async function subtaskLines(page) {
  const frames = (await stats(page)).captures.map((c) => c.frames);
  await page.selectOption('#opt-lines', 'subtask');
  await page.waitForFunction((f) => window.weirViewer.stats().captures.every((c, i) => c.frames > f[i]), frames);
  return stats(page);
}

// Real pixels of a canvas (or a region of it), read back with getImageData
// and summarised in the page (shipping megabytes of pixels to Node is slow):
// how many are not white, how many distinct colours, and for each colour
// asked about (hex, with a tolerance per channel) how many pixels have it.
export async function pixels(page, selector, region, colors = [], tol = 2) {
  return page.evaluate(({ sel, index, region, colors, tol }) => {
    const cv = document.querySelectorAll(sel)[index];
    const g = cv.getContext('2d');
    const r = region ? { x: Math.round(region.x), y: Math.round(region.y), w: Math.round(region.w), h: Math.round(region.h) }
      : { x: 0, y: 0, w: cv.width, h: cv.height };
    const d = g.getImageData(r.x, r.y, r.w, r.h).data;
    const rgb = colors.map((hex) => { const n = parseInt(hex.slice(1), 16); return [(n >> 16) & 255, (n >> 8) & 255, n & 255]; });
    const counts = colors.map(() => 0);
    const distinct = new Set();
    let ink = 0;
    for (let i = 0; i < d.length; i += 4) {
      const R = d[i], G = d[i + 1], B = d[i + 2];
      if (R < 245 || G < 245 || B < 245) ink++;
      distinct.add((R << 16) | (G << 8) | B);
      for (let k = 0; k < rgb.length; k++) {
        if (Math.abs(R - rgb[k][0]) <= tol && Math.abs(G - rgb[k][1]) <= tol && Math.abs(B - rgb[k][2]) <= tol) counts[k]++;
      }
    }
    let hash = 0;
    for (let i = 0; i < d.length; i += 7) hash = (Math.imul(hash, 31) + d[i]) | 0;
    return { w: r.w, h: r.h, ink, distinct: distinct.size, counts, hash };
  }, { sel: typeof selector === 'string' ? selector : selector.sel, index: typeof selector === 'string' ? 0 : selector.index || 0, region, colors, tol });
}
// The colour the viewer gives a subtask (from the hook), to look for in pixels.
export async function colorOf(page, captureIndex, op, subtask) {
  return page.evaluate(([c, o, s]) => window.weirViewer.colorOf(c, o, s), [captureIndex, op, subtask]);
}

export async function screenshot(page, name) {
  const p = join(outDir, `${name}.png`);
  await page.screenshot({ path: p, fullPage: true });
  return p;
}

// A very small runner: `test(name, fn)` bodies get a fresh browser page;
// `check(cond, what)` records a failure (and keeps going, so one run reports
// everything that is wrong); the script exits 1 if anything failed.
export function runner(title) {
  const tests = [];
  const api = {
    test(name, fn) { tests.push({ name, fn }); },
    async run() {
      const browser = await launch();
      let failed = 0;
      for (const t of tests) {
        const failures = [];
        const check = (cond, what) => { if (!cond) failures.push(what); return !!cond; };
        const started = Date.now();
        let page = null;
        try {
          page = await openViewer(browser);
          await t.fn({ page, check, browser, open: (url) => openViewer(browser, url) });
          if (page.problems.length) failures.push(...page.problems);
        } catch (e) {
          failures.push(`threw: ${e && e.stack ? e.stack : e}`);
        }
        if (page) {
          try { await screenshot(page, `${title}-${t.name}`); } catch (e) { /* the page may be gone */ }
          await page.context().close();
        }
        const ms = Date.now() - started;
        if (failures.length) {
          failed++;
          console.log(`FAIL ${title}/${t.name} (${ms} ms)`);
          for (const f of failures) console.log(`  - ${f}`);
        } else console.log(`ok   ${title}/${t.name} (${ms} ms)`);
      }
      await browser.close();
      console.log(failed ? `${failed} of ${tests.length} failed` : `all ${tests.length} passed`);
      process.exit(failed ? 1 : 0);
    },
  };
  return api;
}

// The events of a JSONL capture, read in Node, so that tests compare what
// the viewer shows with what the file says.
export function readJsonl(path) {
  return readFileSync(path, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
}
// Output watermark series the file implies: every subtask of every operator
// that reports output watermarks at all.
export function expectedOutputSeries(events) {
  const job = events[0];
  const withWm = new Set(events.filter((e) => e.kind === 'watermark' && e.input === undefined).map((e) => e.op));
  return job.operators.filter((o) => withWm.has(o.name)).reduce((n, o) => n + o.parallelism, 0);
}
// The canvas-relative rectangle of a capture's timeline and its panels.
export async function plotRect(page, index = 0) {
  const s = await stats(page);
  return s.captures[index].plot;
}
export async function canvasBox(page, index = 0) {
  return page.locator('canvas.chart').nth(index).boundingBox();
}
export function sameView(a, b, tol = 1e-6) {
  const span = Math.max(1, b.t1 - b.t0);
  return Math.abs(a.t0 - b.t0) <= tol * span && Math.abs(a.t1 - b.t1) <= tol * span;
}
