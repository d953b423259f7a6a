// viewer_msgpack: a msgpack capture decodes, in the page, to exactly what the
// same run's JSONL gives: the same events, series, picture and table rows.
// The pair is examples/capture's capture.msgpack and capture.jsonl, written
// by one run (diag.msgpack_path and jsonl_path); its event times are epoch
// milliseconds, so 64-bit integers are decoded too.
import { runner, capture, load, stats, pixels } from './lib.mjs';

const r = runner('msgpack');

async function snapshot(page, path) {
  const s = await load(page, [path]);
  const c = s.captures[0];
  const px = await pixels(page, 'canvas.chart');
  const rows = await page.locator('#table-body tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent).join('|')));
  return { s, c, px, rows };
}

r.test('same-as-jsonl', async ({ page, check }) => {
  const packed = capture.msgpack();
  const plain = process.env.WEIR_CAPTURE_MSGPACK && !process.env.WEIR_CAPTURE_MSGPACK_JSONL ? null : capture.msgpackJsonl();
  if (!plain) { console.log('WEIR_CAPTURE_MSGPACK set without WEIR_CAPTURE_MSGPACK_JSONL: only decoding is checked'); }
  const m = await snapshot(page, packed);
  check(m.c && m.c.format === 'msgpack' && m.c.frames > 0, `decoded and drawn: ${JSON.stringify(m.s.messages)}`);
  check(m.s.messages.every((x) => x.level !== 'error'), 'no errors');
  // Event times beyond 32 bits came through exact: the y range is epoch ms.
  check(m.c.drawn.y0 > 2 ** 32 && m.c.drawn.y1 > 2 ** 32, `event time y range ${m.c.drawn.y0}..${m.c.drawn.y1}`);
  if (!plain) return;
  const j = await snapshot(page, plain);
  check(m.c.events === j.c.events, `events ${m.c.events} / ${j.c.events}`);
  check(JSON.stringify(m.c.series) === JSON.stringify(j.c.series), `series ${JSON.stringify(m.c.series)} / ${JSON.stringify(j.c.series)}`);
  check(JSON.stringify(m.c.kinds) === JSON.stringify(j.c.kinds), 'kinds');
  check(m.c.tEnd === j.c.tEnd && m.c.drawn.y0 === j.c.drawn.y0 && m.c.drawn.y1 === j.c.drawn.y1, 'time and event-time ranges');
  check(m.px.hash === j.px.hash, 'the same picture, pixel for pixel');
  check(m.rows.length === 200 && JSON.stringify(m.rows) === JSON.stringify(j.rows), `the same table rows (first differing: ${m.rows.find((x, i) => x !== j.rows[i])})`);
  // The selected event's text is the JSON the JSONL file holds.
  await page.locator('#table-body tr').nth(150).click();
  const fromJsonl = await page.locator('.selected-event').first().textContent();
  await load(page, [packed]);
  await page.locator('#table-body tr').nth(150).click();
  const fromMsgpack = await page.locator('.selected-event').first().textContent();
  check(fromJsonl === fromMsgpack, `event text: ${fromJsonl.slice(0, 120)} / ${fromMsgpack.slice(0, 120)}`);
});

await r.run();
