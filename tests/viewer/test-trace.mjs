// viewer_trace: the chrome trace that `weir capture convert --to chrome-trace`
// writes is read back in Chromium by a small reader of the Trace Event
// Format (readTrace below, run in the page, the way a trace viewer's
// importer would take the file: JSON.parse, then tracks by process and
// thread, counters by process and name, slices from B/E and X), and what it
// finds is compared with the capture the trace was made of (read in Node)
// and with what the viewer itself counts when it loads that capture:
// threads per operator subtask, firings and late elements by kind, idle
// slices, watermark counters that end where the capture's watermarks end.
// Bounded: one conversion of a demo capture (well under a second) and one
// page load.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { runner, capture, load, readJsonl, capturesDir, here } from './lib.mjs';

const r = runner('trace');
const weir = join(resolve(process.env.WEIR_BUILD || join(here, '..', '..', 'build', 'release')), 'tools', 'weir');

// The reader, run inside the page. It knows the format, not weir: what it
// returns is what any importer would build.
function readTrace(text) {
  const doc = JSON.parse(text);
  const events = Array.isArray(doc) ? doc : doc.traceEvents;
  const procs = new Map(), threads = new Map(), counters = new Map(), problems = [];
  const thread = (pid, tid) => {
    const k = `${pid}/${tid}`;
    if (!threads.has(k)) threads.set(k, { pid, tid, name: null, instants: {}, slices: [], open: [] });
    return threads.get(k);
  };
  for (const e of events) {
    if (typeof e.name !== 'string' || typeof e.ph !== 'string' || typeof e.ts !== 'number') { problems.push(`bad event ${JSON.stringify(e)}`); continue; }
    if (e.ph === 'M') {
      if (e.name === 'process_name') procs.set(e.pid, e.args.name);
      else if (e.name === 'thread_name') thread(e.pid, e.tid).name = e.args.name;
      continue;
    }
    if (e.ph === 'C') {
      const k = `${e.pid}/${e.name}`;
      if (!counters.has(k)) counters.set(k, { name: e.name, points: [] });
      const c = counters.get(k);
      const last = c.points[c.points.length - 1];
      if (last && last.ts > e.ts) problems.push(`counter ${k} goes back in time`);
      c.points.push({ ts: e.ts, value: e.args.value });
      continue;
    }
    const th = thread(e.pid, e.tid);
    if (e.ph === 'i' || e.ph === 'I') th.instants[e.name] = (th.instants[e.name] || 0) + 1;
    else if (e.ph === 'B') th.open.push({ name: e.name, ts: e.ts });
    else if (e.ph === 'E') {
      const b = th.open.pop();
      if (!b || b.name !== e.name) problems.push(`unmatched E ${e.name} on ${th.name}`);
      else th.slices.push({ name: b.name, ts: b.ts, dur: e.ts - b.ts });
    } else if (e.ph === 'X') th.slices.push({ name: e.name, ts: e.ts, dur: e.dur });
    else problems.push(`unknown phase ${e.ph}`);
  }
  for (const th of threads.values()) if (th.open.length) problems.push(`open slice on ${th.name}`);
  // Plain data for Node: per named thread, its instants and slice counts.
  const out = { processes: [...procs.values()], threads: {}, counters: {}, problems };
  for (const th of threads.values()) {
    if (!th.name) { problems.push(`thread ${th.pid}/${th.tid} without a name`); continue; }
    const slices = {};
    for (const s of th.slices) slices[s.name] = (slices[s.name] || 0) + 1;
    out.threads[th.name] = { instants: th.instants, slices };
  }
  for (const c of counters.values()) {
    const p = c.points;
    out.counters[c.name] = { n: p.length, last: p.length ? p[p.length - 1].value : null, lastTs: p.length ? p[p.length - 1].ts : null };
  }
  return out;
}

function convert(path, name) {
  const out = join(capturesDir, name);
  execFileSync(weir, ['capture', 'convert', '--to', 'chrome-trace', path, out], { stdio: 'pipe' });
  return readFileSync(out, 'utf8');
}

// What the capture says, in the reader's terms.
function expected(events) {
  const job = events[0];
  const want = { threads: [], fires: {}, lateFires: {}, dropped: {}, side: {}, idle: {}, lastWm: {}, cleanups: {}, carried: 0 };
  for (const o of job.operators) for (let s = 0; s < o.parallelism; s++) want.threads.push(`${o.name}[${s}]`);
  const idleNow = {};
  const add = (m, k) => { m[k] = (m[k] || 0) + 1; };
  for (const e of events) {
    const sub = `${e.op}[${e.subtask}]`;
    if (e.kind === 'window_fire') add(e.firing > 0 || e.on_time === false ? want.lateFires : want.fires, sub);
    // version 3: a window's cleanup carried by its on-time firing
    if (e.kind === 'cleanup' || (e.kind === 'window_fire' && e.cleanup === true)) add(want.cleanups, sub);
    if (e.kind === 'window_fire' && e.cleanup === true) want.carried++;
    if (e.kind === 'window_fire') continue;
    else if (e.kind === 'late') add(e.action === 'dropped' ? want.dropped : want.side, sub);
    else if (e.kind === 'status' && e.input === undefined) {
      if (e.idle && !idleNow[sub]) add(want.idle, sub);
      idleNow[sub] = e.idle;
    } else if (e.kind === 'watermark' && e.input === undefined && typeof e.watermark === 'number') want.lastWm[sub] = e.watermark;
  }
  return want;
}

for (const [label, path] of [['lateness', () => capture.demo()], ['idleness', () => capture.b()]]) {
  r.test(label, async ({ page, check }) => {
    const file = path();
    const text = convert(file, `${label}.trace.json`);
    const got = await page.evaluate(readTrace, text);
    const want = expected(readJsonl(file));
    check(got.problems.length === 0, `the reader finds no problem: ${got.problems.slice(0, 5).join('; ')}`);
    check(got.processes.length === readJsonl(file)[0].operators.length, `one process per operator: ${got.processes.join(', ')}`);
    for (const name of want.threads) check(got.threads[name], `a thread for ${name}`);
    const count = (name, kind) => (got.threads[name] ? got.threads[name].instants[kind] || 0 : 0);
    const slices = (name, kind) => (got.threads[name] ? got.threads[name].slices[kind] || 0 : 0);
    let late = 0;
    for (const name of want.threads) {
      const lateFires = Object.entries(got.threads[name] ? got.threads[name].instants : {})
        .filter(([k]) => k.startsWith('late firing ')).reduce((a, [, v]) => a + v, 0);
      check(count(name, 'window fired on time') === (want.fires[name] || 0), `${name}: on-time firings ${count(name, 'window fired on time')} = ${want.fires[name] || 0}`);
      check(lateFires === (want.lateFires[name] || 0), `${name}: late firings ${lateFires} = ${want.lateFires[name] || 0}`);
      check(count(name, 'late element dropped') === (want.dropped[name] || 0), `${name}: dropped ${count(name, 'late element dropped')} = ${want.dropped[name] || 0}`);
      check(count(name, 'late element to the side output') === (want.side[name] || 0), `${name}: side output`);
      check(slices(name, 'idle') === (want.idle[name] || 0), `${name}: idle slices ${slices(name, 'idle')} = ${want.idle[name] || 0}`);
      check(count(name, 'window cleanup') === (want.cleanups[name] || 0), `${name}: cleanups ${count(name, 'window cleanup')} = ${want.cleanups[name] || 0}`);
      late += (want.dropped[name] || 0) + (want.side[name] || 0) + (want.lateFires[name] || 0);
      if (want.lastWm[name] !== undefined) {
        const c = got.counters[`${name} watermark`];
        check(c && c.last === want.lastWm[name], `${name}: the watermark counter ends at ${want.lastWm[name]}: ${c && c.last}`);
      }
    }
    if (label === 'lateness') check(late > 0, 'the lateness capture has late data to compare');
    if (label === 'idleness') check(Object.keys(want.idle).length > 0, 'the idleness capture has idle spans to compare');
    // its window has no allowed lateness: each window's cleanup rides in its firing
    if (label === 'idleness') check(want.carried > 0, `the idleness capture has firings that carry their cleanup: ${want.carried}`);
    // The viewer, given the same capture, counts the same firings.
    const s = await load(page, [file]);
    const fires = Object.values(want.fires).reduce((a, b) => a + b, 0) + Object.values(want.lateFires).reduce((a, b) => a + b, 0);
    check(s.captures[0].kinds.window_fire === fires, `the viewer's window_fire count ${s.captures[0].kinds.window_fire} = the trace's ${fires}`);
  });
}

await r.run();
