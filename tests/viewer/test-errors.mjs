// viewer_errors: a file that is not a capture gets a clear message naming the
// file and where it went wrong (line for JSONL, byte offset for msgpack), the
// page is never blank, and the viewer goes on working afterwards. A JSONL
// capture cut in the middle of its last line (a crashed run) is not refused:
// its complete lines load, with a warning saying where it was cut. The bad
// files are made from weir's own captures (lib.mjs, malformed()).
import { readFileSync } from 'node:fs';
import { runner, capture, malformed, load, stats, pixels } from './lib.mjs';

const r = runner('errors');

const errors = (s) => s.messages.filter((m) => m.level === 'error').map((m) => m.text);

async function notBlank(page, check) {
  const text = await page.locator('body').innerText();
  check(text.trim().length > 50, 'the page shows text');
  const visible = await page.locator('.msg.error').first().isVisible();
  check(visible, 'the error message is visible');
  const color = await page.locator('.msg.error').first().evaluate((e) => getComputedStyle(e).color);
  check(color !== 'rgba(0, 0, 0, 0)', `the message has a colour: ${color}`);
}

r.test('not-json-at-line', async ({ page, check }) => {
  const path = malformed('bad-json.jsonl');
  const s = await load(page, [path]);
  const e = errors(s);
  check(e.length === 1, `one error, got ${JSON.stringify(e)}`);
  check(/^bad-json\.jsonl line 17: not JSON \(.+\)$/.test(e[0] || ''), `message names the file, line 17 and the parser's complaint: ${e[0]}`);
  check(s.captures.length === 0, 'nothing half-loaded is shown');
  await notBlank(page, check);
  check((await page.locator('.msg.error').innerText()).includes('line 17'), 'the message is on the page');
});

r.test('truncated-msgpack-offset', async ({ page, check }) => {
  const path = malformed('truncated.msgpack');
  const size = readFileSync(path).length;
  const s = await load(page, [path]);
  const e = errors(s)[0] || '';
  const m = /^truncated\.msgpack byte (\d+): truncated msgpack: .+ \(in event (\d+), which starts at byte (\d+)\)$/.exec(e);
  check(!!m, `message names the file, the byte offset and the event: ${e}`);
  if (m) {
    const at = Number(m[1]), start = Number(m[3]);
    check(at <= size && at >= start && start < size, `offset ${at} within the file (${size} bytes), event starts at ${start}`);
    check(Number(m[2]) > 1, `the event number ${m[2]}`);
  }
  await notBlank(page, check);
});

r.test('not-a-capture', async ({ page, check }) => {
  let s = await load(page, [malformed('not-job-first.jsonl')]);
  let e = errors(s)[0] || '';
  check(/^not-job-first\.jsonl line 1: first event is not a job event/.test(e), `first event check: ${e}`);
  s = await load(page, [malformed('not-a-capture.txt')]);
  e = errors(s)[0] || '';
  check(/^not-a-capture\.txt byte 0: not a capture/.test(e), `plain text: ${e}`);
  await notBlank(page, check);
});

r.test('cut-short-loads-its-complete-lines', async ({ page, check }) => {
  const path = malformed('cut-short.jsonl');
  const text = readFileSync(path, 'utf8');
  const complete = text.slice(0, text.lastIndexOf('\n') + 1).split('\n').filter((l) => l.trim()).length;
  const cutLine = text.slice(0, text.lastIndexOf('\n') + 1).split('\n').length;
  check(!text.endsWith('\n'), 'the file ends mid-line');
  const s = await load(page, [path]);
  check(errors(s).length === 0, `no error: ${JSON.stringify(errors(s))}`);
  const c = s.captures[0];
  check(c && c.events === complete && c.frames > 0, `the ${complete} complete lines load and are drawn: ${c && c.events}`);
  const warnings = s.messages.filter((m) => m.level === 'warning').map((m) => m.text);
  const cut = warnings.find((w) => w.includes('cut short at line'));
  check(cut && cut.startsWith('cut-short.jsonl: capture cut short at line ' + cutLine + ':'), `a warning names the line it was cut at (${cutLine}): ${JSON.stringify(warnings)}`);
  check(await page.locator('.msg.warning', { hasText: `cut short at line ${cutLine}` }).isVisible(), 'the warning is on the page');
  // A broken line that is not the last one is still an error (that is no cut).
  const s2 = await load(page, [malformed('bad-json.jsonl')]);
  check(errors(s2).length === 1 && s2.captures.length === 0, `a broken middle line is refused: ${JSON.stringify(s2.messages)}`);
});

r.test('good-and-bad-together', async ({ page, check }) => {
  // A bad file among good ones: the good one is drawn, the bad one explained.
  const s = await load(page, [malformed('bad-json.jsonl'), capture.a()]);
  check(s.captures.length === 1 && s.captures[0].frames > 0, `the good capture is drawn: ${JSON.stringify(s.captures.map((c) => c.name))}`);
  check(errors(s).length === 1 && errors(s)[0].includes('line 17'), `one error: ${JSON.stringify(errors(s))}`);
  const px = await pixels(page, 'canvas.chart');
  check(px.ink > 1000, 'the chart is drawn');
  // After an error a new file loads normally and the old message goes.
  const s2 = await load(page, [capture.b()]);
  check(errors(s2).length === 0 && s2.captures.length === 1, `a fresh load clears the error: ${JSON.stringify(s2.messages)}`);
});

await r.run();
