// viewer_topology: the job's operators and edges are drawn with parallelism
// and partitioning; clicking an operator filters the chart and the table to
// it, clicking it again (or "Clear") shows everything again.
import { runner, capture, load, stats, pixels, colorOf, readJsonl, subtaskLines } from './lib.mjs';

const r = runner('topology');

r.test('graph-and-filter', async ({ page, check }) => {
  const path = capture.demo();
  const events = readJsonl(path);
  const job = events[0];
  await load(page, [path]);
  const s0 = await subtaskLines(page);
  // Every operator, with its parallelism; every edge, labelled.
  for (const op of job.operators) {
    const node = page.locator(`.topology .node[data-op="${op.name}"]`);
    check(await node.count() === 1, `a node for ${op.name}`);
    const text = await node.locator('text').allTextContents();
    check(text.join(' ').includes(`p=${op.parallelism}`), `${op.name} shows p=${op.parallelism}: ${text.join(' ')}`);
  }
  const labels = await page.locator('.topology text.elabel').allTextContents();
  check(labels.length === job.edges.length, `edge labels ${labels.length}, edges ${job.edges.length}`);
  for (const e of job.edges.filter((x) => !x.chained)) {
    check(labels.some((l) => l.startsWith(e.partitioning)), `an edge labelled ${e.partitioning}`);
  }
  // Chained edges look different: no arrowhead, a double rail.
  const arrows = await page.locator('.topology g.edge path[marker-end]').count();
  check(arrows === job.edges.filter((x) => !x.chained).length, `arrows only on channel edges: ${arrows}`);

  // Click an operator with several subtasks.
  const op = job.operators.find((o) => o.kind === 'window') || job.operators[1];
  const others = job.operators.filter((o) => o !== op);
  const otherCols = [];
  for (const o of others) for (let k = 0; k < o.parallelism; k++) otherCols.push(await colorOf(page, 0, o.name, k));
  const mine = [];
  for (let k = 0; k < op.parallelism; k++) mine.push(await colorOf(page, 0, op.name, k));
  await page.locator(`.topology .node[data-op="${op.name}"]`).click();
  await page.waitForFunction(() => { const t = window.weirViewer.stats().table; return t && !t.busy; });
  await page.waitForTimeout(150);
  const s1 = await stats(page);
  const hasWm = events.some((e) => e.kind === 'watermark' && e.op === op.name && e.input === undefined);
  check(s1.captures[0].focusOp === op.name, `focused on ${op.name}: ${s1.captures[0].focusOp}`);
  check(s1.captures[0].drawn.output === (hasWm ? op.parallelism : 0), `only ${op.name}'s ${op.parallelism} series drawn: ${s1.captures[0].drawn.output}`);
  const expectedRows = events.filter((e) => e.op === op.name).length;
  check(s1.table.matched === expectedRows, `table filtered to ${op.name}: ${s1.table.matched}, file ${expectedRows}`);
  check(await page.locator('#f-op').inputValue() !== '', 'the operator filter shows it');
  const ops = new Set(await page.locator('#table-body tr td:nth-child(3)').allTextContents());
  check(ops.size === 1 && ops.has(op.name), `table rows all of ${op.name}: ${[...ops].join(',')}`);
  const px = await pixels(page, 'canvas.chart', s1.captures[0].plot, [...otherCols, ...mine]);
  const otherPx = px.counts.slice(0, otherCols.length).reduce((a, b) => a + b, 0);
  const minePx = px.counts.slice(otherCols.length).reduce((a, b) => a + b, 0);
  check(otherPx === 0, `no other operator's colour left in the timeline: ${otherPx} (${otherCols.map((c, i) => `${c}:${px.counts[i]}`).filter((x) => !x.endsWith(':0')).join(' ')})`);
  check(minePx > 50, `${op.name}'s own lines are drawn: ${minePx}`);
  check(await page.locator('.topology .node.selected').count() === 1, 'the node is marked selected');

  // Click again: everything back.
  await page.locator(`.topology .node[data-op="${op.name}"]`).click();
  await page.waitForFunction(() => { const t = window.weirViewer.stats().table; return t && !t.busy; });
  const s2 = await stats(page);
  check(s2.captures[0].focusOp === null && s2.captures[0].drawn.output === s0.captures[0].drawn.output, 'unfiltered by a second click');
  check(s2.table.matched === events.length, `table unfiltered: ${s2.table.matched}`);

  // Keyboard and the Clear button.
  await page.locator(`.topology .node[data-op="${op.name}"]`).focus();
  await page.keyboard.press('Enter');
  await page.waitForTimeout(150);
  check((await stats(page)).captures[0].focusOp === op.name, 'Enter on a focused node filters');
  await page.locator('.focus-note button.clear-focus').click();
  await page.waitForFunction(() => { const t = window.weirViewer.stats().table; return t && !t.busy; });
  const s3 = await stats(page);
  check(s3.captures[0].focusOp === null && s3.table.matched === events.length, 'Clear shows everything');
});

// Table nodes show their changelog mode (Flink's EXPLAIN CHANGELOG_MODE) on
// the node, and a node's box is wide enough for its whole second line.
r.test('changelog-modes', async ({ page, check }) => {
  const path = capture.table();
  const job = readJsonl(path)[0];
  await load(page, [path]);
  const tables = job.operators.filter((o) => o.settings && o.settings.changelog_mode);
  check(tables.some((o) => o.settings.changelog_mode === '[I,UB,UA]'), `a GroupAggregate emits updates: ${tables.map((o) => o.name).join(', ')}`);
  for (const op of job.operators) {
    const node = page.locator(`.topology .node[data-op="${op.name}"]`);
    const sub = node.locator('text.sub');
    const text = await sub.textContent();
    const mode = op.settings && op.settings.changelog_mode;
    if (mode) {
      check(text.endsWith(` · ${mode}`), `${op.name} shows ${mode}: ${text}`);
      check(await sub.getAttribute('data-changelog') === mode, `${op.name}: data-changelog ${mode}`);
    } else {
      check(!text.includes('['), `${op.name} shows no changelog mode: ${text}`);
    }
    const fits = await node.evaluate((g) => g.querySelector('text.sub').getBBox().width + 12 <= g.querySelector('rect.box').getBBox().width);
    check(fits, `${op.name}: the second line fits in its box`);
  }
});

// The names SQL gives its operators are their plans ("WatermarkAssigner(
// rowtime=[ts], watermark=[ts - INTERVAL '1' SECOND])"): at 1600 px the six
// boxes of long-names.sql fit the card (they ran past the window's edge),
// a name cut short ends in "…" and begins as the name does, every name and
// second line fits its box, and each node's tooltip gives its name whole.
r.test('long-sql-names-fit', async ({ page, check }) => {
  const path = capture.sql();
  const job = readJsonl(path)[0];
  check(job.operators.length >= 6 && job.operators.some((o) => o.name.length > 60),
    `long-names.sql makes long names: ${job.operators.map((o) => o.name).join(' | ')}`);
  await page.setViewportSize({ width: 1600, height: 1000 });
  await load(page, [path]);
  const topo = await page.evaluate(() => {
    const box = document.querySelector('.topology'), svg = box.querySelector('svg'), card = box.closest('section.capture');
    const r = svg.getBoundingClientRect(), c = card.getBoundingClientRect();
    return { scroll: box.scrollWidth, client: box.clientWidth, right: r.right, cardRight: c.right, window: window.innerWidth };
  });
  check(topo.scroll <= topo.client && topo.right <= topo.cardRight && topo.right <= topo.window,
    `the topology fits its card: ${JSON.stringify(topo)}`);
  let cut = 0;
  for (const op of job.operators) {
    const node = page.locator(`.topology .node[data-op="${op.name.replace(/["\\]/g, '\\$&')}"]`);
    if (!check(await node.count() === 1, `a node for ${op.name}`)) continue;
    const got = await node.evaluate((g) => ({
      name: g.querySelector('text.name').textContent, title: g.querySelector('title').textContent,
      nameFits: g.querySelector('text.name').getBBox().width + 12 <= g.querySelector('rect.box').getBBox().width,
      subFits: g.querySelector('text.sub').getBBox().width + 12 <= g.querySelector('rect.box').getBBox().width }));
    if (got.name !== op.name) {
      cut++;
      check(got.name.endsWith('…') && op.name.startsWith(got.name.slice(0, -1)) && got.name.length >= 12,
        `${op.name}: shortened to "${got.name}"`);
    }
    check(got.title.startsWith(`${op.name} (`), `${op.name}: the tooltip names it whole: ${got.title.split('\n')[0]}`);
    check(got.nameFits && got.subFits, `${op.name}: name and second line fit the box`);
  }
  check(cut > 0, 'some names were shortened');
  // the strip's row of the window operator gives its name whole on hover
  const strip = await page.evaluate(() => [...document.querySelectorAll('.strip-op')].map((e) => ({ text: e.textContent, title: e.title })));
  check(strip.every((x) => x.title === x.text), `the strip's row names have tooltips: ${JSON.stringify(strip)}`);
});

// A Nexmark query's job (weir-bench --nexmark q20 --capture: the source,
// its views and a join, 14 operators), whose Calc names are the whole SQL
// text of their projections (up to 400 characters, with the line breaks of
// the source's CASE): every box shows at most 30 characters of its name, a
// cut one ending in "…" and beginning as the name does, each name and
// second line fits its box, and each node's tooltip gives the name whole.
r.test('nexmark-names', async ({ page, check }) => {
  const path = capture.nexmark();
  const job = readJsonl(path)[0];
  check(job.operators.length >= 10 && job.operators.some((o) => o.name.length > 300),
    `the Nexmark query has long names: ${job.operators.map((o) => o.name.length).join(' ')}`);
  await page.setViewportSize({ width: 1600, height: 1000 });
  await load(page, [path]);
  const nodes = await page.evaluate(() => [...document.querySelectorAll('.topology .node')].map((g) => ({
    op: g.getAttribute('data-op'), name: g.querySelector('text.name').textContent,
    title: g.querySelector('title').textContent,
    nameFits: g.querySelector('text.name').getBBox().width + 12 <= g.querySelector('rect.box').getBBox().width,
    subFits: g.querySelector('text.sub').getBBox().width + 12 <= g.querySelector('rect.box').getBBox().width })));
  check(nodes.length === job.operators.length, `${nodes.length} nodes for ${job.operators.length} operators`);
  let cut = 0;
  for (const op of job.operators) {
    const got = nodes.find((n) => n.op === op.name);
    if (!check(got, `a node for ${op.name.slice(0, 60)}`)) continue;
    check(got.name.length <= 30, `${op.name.slice(0, 60)}: shown in at most 30 characters: "${got.name}"`);
    if (got.name !== op.name) {
      cut++;
      check(got.name.endsWith('…') && op.name.startsWith(got.name.slice(0, -1)),
        `${op.name.slice(0, 60)}: shortened to "${got.name}"`);
    }
    check(got.title.startsWith(`${op.name} (`), `${op.name.slice(0, 60)}: the tooltip names it whole`);
    check(got.nameFits && got.subFits, `${op.name.slice(0, 60)}: name and second line fit the box`);
  }
  check(cut >= 4, `the long names were shortened (${cut})`);
  // The page stays as wide as the window (the topology scrolls in its own
  // box): the events table's operator filter lists the names shortened,
  // each option's tooltip giving its name whole (it made the page 2901 px
  // wide, as wide as the longest name).
  const page1 = await page.evaluate(() => ({ doc: document.documentElement.scrollWidth, win: window.innerWidth,
    select: Math.round(document.getElementById('f-op').getBoundingClientRect().width),
    options: [...document.getElementById('f-op').options].slice(1).map((o) => ({ value: o.value, text: o.textContent, title: o.title })) }));
  check(page1.doc <= page1.win, `the page is as wide as the window: ${page1.doc} px in ${page1.win}`);
  check(page1.select <= 600, `the operator filter is ${page1.select} px wide`);
  for (const op of job.operators) {
    const o = page1.options.find((x) => x.title === op.name);
    if (!check(o, `an operator filter option for ${op.name.slice(0, 60)}, whole in its tooltip`)) continue;
    check(o.text.length <= 60 && (o.text === op.name.replace(/\s+/g, ' ') || o.text.endsWith('…')),
      `${op.name.slice(0, 60)}: its option says "${o.text}"`);
  }
});

await r.run();
