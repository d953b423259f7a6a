// make-captures.mjs — writes the synthetic captures the viewer's browser tests
// load until the engine's examples produce real ones.
//
// The captures follow docs/CAPTURE.md exactly, and they are not drawn by hand:
// a small discrete-event simulation on a virtual clock runs the job the tests
// expect and reports what the runtime would report. The job is
//
//   source(p=3) -forward, chained-> timestamps(p=3) -hash-> window(p=2) -forward, chained-> sink(p=2)
//                                                    \-hash-> sessions(p=2) -forward, chained-> session_sink(p=2)
//   window -side output 1, rebalance-> late_sink(p=1)
//
// and the simulation follows SEMANTICS.md: bounded-out-of-orderness watermarks
// probed every 200 ms, the idleness countdown, the output gate, the valve at
// every task input (per-channel watermarks, alignment, held_by), tumbling
// windows with allowed lateness (on-time and late firings, cleanup, late
// elements to the side output), session windows (merges, late elements
// dropped), throughput every 100 ms per operator subtask, backpressure on the
// timestamps subtasks while a window subtask is slow, and a summary whose
// counters add up. Events of different subtasks interleave slightly out of t
// order, as the real collector writes them.
//
// Usage: node make-captures.mjs [OUTDIR] [--no-big] [--keep]
// Writes into OUTDIR (default ./captures):
//   demo.jsonl, demo.msgpack          the same run in both encodings
//   idle-without-idleness.jsonl       partition 2 goes quiet, no idleness: the window watermark stalls
//   idle-with-idleness.jsonl          the same run with idleness 1000 ms: it advances, the backlog is late
//   big.jsonl, big.msgpack            a run of just over 1 000 000 events
//   bad-json.jsonl                    line 17 is not JSON
//   truncated.msgpack                 demo.msgpack cut inside an event
//   not-job-first.jsonl               a capture whose first event is not `job`
//   not-a-capture.txt                 plain text
// and prints one line per file with its event count.

import { mkdirSync, writeFileSync, openSync, writeSync, closeSync, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MIN = -Infinity, MAX = Infinity;   // INT64_MIN / INT64_MAX inside the simulation

// ---- a seeded random source, so every run writes the same bytes ----------------

function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hashKey(key) {
  let h = 2166136261;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 16777619);
  return h >>> 0;
}

// ---- the valve (SEMANTICS.md section 3) ------------------------------------------

class Valve {
  constructor(n) {
    this.wm = new Array(n).fill(MIN);
    this.idle = new Array(n).fill(false);
    this.aligned = new Array(n).fill(true);
    this.lastWm = MIN;
    this.outIdle = false;
  }
  minAligned() {
    let m = null;
    for (let c = 0; c < this.wm.length; c++) {
      if (this.aligned[c] && !this.idle[c] && (m === null || this.wm[c] < m)) m = this.wm[c];
    }
    return m;
  }
  heldBy() {
    let h = null;
    for (let c = 0; c < this.wm.length; c++) {
      if (this.aligned[c] && !this.idle[c] && (h === null || this.wm[c] < this.wm[h])) h = c;
    }
    return h;
  }
  // Returns {taken, actions}: whether wm[c] changed, and what leaves the valve.
  watermark(c, w) {
    const actions = [];
    if (this.outIdle || this.idle[c] || !(w > this.wm[c])) return { taken: false, actions };
    this.wm[c] = w;
    if (!this.aligned[c] && w >= this.lastWm) this.aligned[c] = true;
    const m = this.minAligned();
    if (m !== null && m > this.lastWm) { this.lastWm = m; actions.push({ wm: m }); }
    return { taken: true, actions };
  }
  status(c, idle) {
    const actions = [];
    if (this.idle[c] === idle) return { changed: false, actions };
    if (idle) {
      this.idle[c] = true;
      this.aligned[c] = false;
      if (this.idle.every(Boolean)) {
        const mx = Math.max(...this.wm);
        if (mx > this.lastWm) { this.lastWm = mx; actions.push({ wm: mx }); }
        this.outIdle = true;
        actions.push({ idle: true });
      } else {
        const m = this.minAligned();
        if (m !== null && m > this.lastWm) { this.lastWm = m; actions.push({ wm: m }); }
      }
    } else {
      this.idle[c] = false;
      this.aligned[c] = this.wm[c] >= this.lastWm;
      if (this.outIdle) { this.outIdle = false; actions.push({ idle: false }); }
      const m = this.minAligned();
      if (m !== null && m > this.lastWm) { this.lastWm = m; actions.push({ wm: m }); }
    }
    return { changed: true, actions };
  }
}

// ---- the simulation ------------------------------------------------------------

const DEFAULTS = {
  seed: 1,
  duration: 20000,          // ms of processing time until the sources end
  base: 0,                  // event time of processing time 0
  keys: ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'grace', 'heidi'],
  rate: 400,                // records per second per source partition
  disorder: 800,            // ms of out-of-orderness in the timestamps
  bound: 1000,              // bounded out-of-orderness of the watermark strategy
  interval: 200,            // watermark probe interval
  idleness: 0,              // ms, 0 = no idleness
  quiet: null,              // {partition, from, to, backlog}: a partition that stops
  slow: null,               // {subtask, from, to}: a window subtask that falls behind
  lateShare: 0.004,         // share of records that are very late
  lagShare: 0.01,           // share of records that are a little late (late firings)
  size: 2000,               // tumbling window size
  lateness: 500,            // allowed lateness of the tumbling window
  gap: 1500,                // session gap
  throughputMs: 100,
};

function simulate(opts) {
  const o = { ...DEFAULTS, ...opts };
  const R = rng(o.seed);
  const P = 3, W = 2;
  const events = [];
  let t = 0;

  // Per-worker buffers: the collector drains worker rings in batches, so events
  // of different subtasks interleave slightly out of t order. Task 0 runs on
  // worker 0, the other tasks on worker 1.
  const rings = [[], []];
  const emit = (worker, ev) => rings[worker].push(ev);
  const drain = () => {
    const order = R() < 0.5 ? [0, 1] : [1, 0];
    for (const w of order) { for (const ev of rings[w]) events.push(ev); rings[w].length = 0; }
  };
  const ts = (v) => (v === MIN ? 'MIN' : v === MAX ? 'MAX' : v);

  // Operators, tasks, counters.
  const ops = [
    { name: 'source', kind: 'source', parallelism: P, task: 0, accounting: 'source', settings: {}, worker: 0 },
    { name: 'timestamps', kind: 'timestamps', parallelism: P, task: 0, accounting: 'one_to_one',
      settings: { strategy: 'bounded', bound_ms: o.bound, interval_ms: o.interval, idleness_ms: o.idleness }, worker: 0 },
    { name: 'window', kind: 'window', parallelism: W, task: 1, accounting: 'window',
      settings: { assigner: 'tumbling', size_ms: o.size, lateness_ms: o.lateness, late_side_output: true }, worker: 1 },
    { name: 'sink', kind: 'sink', parallelism: W, task: 1, accounting: 'sink', settings: {}, worker: 1 },
    { name: 'sessions', kind: 'window', parallelism: W, task: 2, accounting: 'window',
      settings: { assigner: 'session', gap_ms: o.gap, lateness_ms: 0 }, worker: 1 },
    { name: 'session_sink', kind: 'sink', parallelism: W, task: 2, accounting: 'sink', settings: {}, worker: 1 },
    { name: 'late_sink', kind: 'sink', parallelism: 1, task: 3, accounting: 'sink', settings: {}, worker: 1 },
  ];
  const byName = Object.fromEntries(ops.map((op) => [op.name, op]));
  for (const op of ops) {
    op.cnt = [];
    op.gate = [];
    for (let s = 0; s < op.parallelism; s++) {
      op.cnt.push({ in: 0, out: 0, filtered: 0, late_dropped: 0, late_side: 0, absorbed: 0, side_out: 0,
        lastIn: 0, lastOut: 0, lastSample: 0 });
      op.gate.push({ wm: MIN, idle: false });
    }
  }
  events.push({
    kind: 'job', version: 1, t: 0,
    operators: ops.map(({ name, kind, parallelism, task, accounting, settings }) =>
      ({ name, kind, parallelism, task, accounting, settings })),
    edges: [
      { from: 'source', to: 'timestamps', input: 0, partitioning: 'forward', chained: true },
      { from: 'timestamps', to: 'window', input: 0, partitioning: 'hash', chained: false },
      { from: 'window', to: 'sink', input: 0, partitioning: 'forward', chained: true },
      { from: 'timestamps', to: 'sessions', input: 0, partitioning: 'hash', chained: false },
      { from: 'sessions', to: 'session_sink', input: 0, partitioning: 'forward', chained: true },
      { from: 'window', to: 'late_sink', input: 0, partitioning: 'rebalance', chained: false, side: 1 },
    ],
    settings: { workers: 2, clock: 'virtual', parallelism: 1, batch_capacity: 512, channel_batches: 8,
      buffer_timeout_ms: 5, watermark_interval_ms: o.interval, throughput_interval_ms: o.throughputMs,
      level: 'standard', lossy: false, chaining: true, ring_capacity: 65536 },
  });

  // The output gate (SEMANTICS.md section 1) of one operator subtask: returns
  // whether the watermark left, and reports ACTIVE first when it was idle.
  function gateWatermark(op, s, w) {
    const g = op.gate[s];
    if (!(w > g.wm)) return false;
    if (g.idle) { g.idle = false; emit(op.worker, { kind: 'status', t, op: op.name, subtask: s, idle: false }); }
    g.wm = w;
    emit(op.worker, { kind: 'watermark', t, op: op.name, subtask: s, watermark: ts(w) });
    return true;
  }
  function gateStatus(op, s, idle) {
    const g = op.gate[s];
    if (g.idle === idle) return false;
    g.idle = idle;
    emit(op.worker, { kind: 'status', t, op: op.name, subtask: s, idle });
    return true;
  }

  // Channels: a bucket queue keyed by delivery time; FIFO per channel because a
  // message never arrives before the one sent ahead of it on the same channel.
  const queue = new Map();
  const chanLast = new Map();
  function send(chanId, delay, msg) {
    const at = Math.max(t + delay, chanLast.get(chanId) ?? 0);
    chanLast.set(chanId, at);
    if (!queue.has(at)) queue.set(at, []);
    queue.get(at).push(msg);
  }
  const slowLag = (subtask) => {
    const s = o.slow;
    if (!s || s.subtask !== subtask || t < s.from) return 0;
    if (t <= s.to) return Math.round(((t - s.from) / (s.to - s.from)) * 600);
    return Math.max(0, 600 - Math.round(((t - s.to) / 1000) * 600));
  };

  // Consumers: window (tumbling), sessions, late_sink. Each has one input.
  const consumers = {
    window: [], sessions: [], late_sink: [],
  };
  for (let k = 0; k < W; k++) {
    consumers.window.push({ valve: new Valve(P), wm: MIN, panes: new Map(), lastRun: 0 });
    consumers.sessions.push({ valve: new Valve(P), wm: MIN, sessions: new Map(), lastRun: 0 });
  }
  consumers.late_sink.push({ valve: new Valve(W), wm: MIN, lastRun: 0 });

  // --- the tumbling window operator
  function windowRecord(k, key, rts) {
    const op = byName.window, c = consumers.window[k], cnt = op.cnt[k];
    cnt.in++;
    const start = rts - (((rts % o.size) + o.size) % o.size), end = start + o.size;
    const cleanupAt = end - 1 + o.lateness;
    if (cleanupAt <= c.wm) {
      cnt.late_side++;
      cnt.side_out++;
      emit(op.worker, { kind: 'late', t, op: 'window', subtask: k, key, timestamp: ts(rts), windows: [[start, end]],
        watermark: ts(c.wm), lateness: c.wm - rts, action: 'side_output' });
      send(`late:${k}`, 2, { to: 'late_sink', sub: 0, ch: k, rec: true });
      return;
    }
    cnt.absorbed++;
    const id = `${key}|${start}`;
    let pane = c.panes.get(id);
    if (!pane) { pane = { key, start, end, count: 0, firings: 0 }; c.panes.set(id, pane); }
    pane.count++;
    if (end - 1 <= c.wm) {
      // The window's end has passed but it is not cleaned up: the element
      // fires it at once, a late firing (an update of an earlier result).
      pane.firings++;
      pane.fired = true;
      emit(op.worker, { kind: 'window_fire', t, op: 'window', subtask: k, key, start, end, on_time: false,
        firing: pane.firings, count: pane.count, watermark: ts(c.wm) });
      cnt.out++; byName.sink.cnt[k].in++;
    }
  }
  function windowWatermark(k, w) {
    const op = byName.window, c = consumers.window[k];
    c.wm = w;
    const due = [...c.panes.values()].sort((a, b) => a.end - b.end || (a.key < b.key ? -1 : 1));
    for (const pane of due) {
      if (!pane.fired && pane.end - 1 <= w) {
        pane.fired = true;
        emit(op.worker, { kind: 'window_fire', t, op: 'window', subtask: k, key: pane.key, start: pane.start,
          end: pane.end, on_time: true, firing: 0, count: pane.count, watermark: ts(w) });
        op.cnt[k].out++; byName.sink.cnt[k].in++;
      }
    }
    for (const pane of due) {
      const cleanupAt = pane.end - 1 + o.lateness;
      if (cleanupAt <= w) {
        emit(op.worker, { kind: 'cleanup', t, op: 'window', subtask: k, key: pane.key, start: pane.start, end: pane.end });
        c.panes.delete(`${pane.key}|${pane.start}`);
      }
    }
    if (gateWatermark(op, k, w)) {
      gateWatermark(byName.sink, k, w);
      send(`late:${k}`, 2, { to: 'late_sink', sub: 0, ch: k, wm: w });
    }
  }
  function windowStatus(k, idle) {
    if (gateStatus(byName.window, k, idle)) {
      gateStatus(byName.sink, k, idle);
      send(`late:${k}`, 2, { to: 'late_sink', sub: 0, ch: k, idle });
    }
  }

  // --- the session window operator
  function sessionRecord(k, key, rts) {
    const op = byName.sessions, c = consumers.sessions[k], cnt = op.cnt[k];
    cnt.in++;
    let start = rts, end = rts + o.gap;
    if (end - 1 <= c.wm) {
      cnt.late_dropped++;
      emit(op.worker, { kind: 'late', t, op: 'sessions', subtask: k, key, timestamp: ts(rts), windows: [[start, end]],
        watermark: ts(c.wm), lateness: c.wm - rts, action: 'dropped' });
      return;
    }
    cnt.absorbed++;
    const list = c.sessions.get(key) ?? [];
    const keep = [], touched = [];
    for (const s of list) (s.start <= end && s.end >= start ? touched : keep).push(s);
    let count = 1;
    for (const s of touched) { start = Math.min(start, s.start); end = Math.max(end, s.end); count += s.count; }
    const changed = touched.length > 1 || (touched.length === 1 && (touched[0].start !== start || touched[0].end !== end));
    if (changed) {
      emit(op.worker, { kind: 'merge', t, op: 'sessions', subtask: k, key, start, end, merged: touched.length + 1 });
    }
    keep.push({ start, end, count });
    c.sessions.set(key, keep);
  }
  function sessionWatermark(k, w) {
    const op = byName.sessions, c = consumers.sessions[k];
    c.wm = w;
    const fired = [];
    for (const [key, list] of c.sessions) {
      const rest = [];
      for (const s of list) (s.end - 1 <= w ? fired : rest).push({ key, ...s });
      if (rest.length) c.sessions.set(key, rest); else c.sessions.delete(key);
    }
    fired.sort((a, b) => a.end - b.end || (a.key < b.key ? -1 : 1));
    for (const s of fired) {
      emit(op.worker, { kind: 'window_fire', t, op: 'sessions', subtask: k, key: s.key, start: s.start, end: s.end,
        on_time: true, firing: 0, count: s.count, watermark: ts(w) });
      op.cnt[k].out++; byName.session_sink.cnt[k].in++;
      emit(op.worker, { kind: 'cleanup', t, op: 'sessions', subtask: k, key: s.key, start: s.start, end: s.end });
    }
    if (gateWatermark(op, k, w)) gateWatermark(byName.session_sink, k, w);
  }
  function sessionStatus(k, idle) {
    if (gateStatus(byName.sessions, k, idle)) gateStatus(byName.session_sink, k, idle);
  }

  // A message arrives at a consumer's valve.
  function deliver(m) {
    const group = consumers[m.to], c = group[m.sub];
    c.lastRun = t;
    const opName = m.to;
    const onWm = opName === 'window' ? windowWatermark : opName === 'sessions' ? sessionWatermark
      : (k, w) => { c.wm = w; gateWatermark(byName.late_sink, k, w); };
    const onStatus = opName === 'window' ? windowStatus : opName === 'sessions' ? sessionStatus
      : (k, idle) => gateStatus(byName.late_sink, k, idle);
    if (m.rec) {
      if (opName === 'window') windowRecord(m.sub, m.key, m.ts);
      else if (opName === 'sessions') sessionRecord(m.sub, m.key, m.ts);
      else byName.late_sink.cnt[m.sub].in++;
      return;
    }
    const worker = byName[opName].worker;
    let res;
    if ('wm' in m) {
      res = c.valve.watermark(m.ch, m.wm);
      if (res.taken) {
        emit(worker, { kind: 'watermark', t, op: opName, subtask: m.sub, input: 0, channel: m.ch,
          watermark: ts(m.wm), held_by: c.valve.heldBy() });
      }
    } else {
      res = c.valve.status(m.ch, m.idle);
      if (res.changed) emit(worker, { kind: 'status', t, op: opName, subtask: m.sub, input: 0, channel: m.ch, idle: m.idle });
    }
    for (const a of res.actions) {
      if ('wm' in a) onWm(m.sub, a.wm); else onStatus(m.sub, a.idle);
    }
  }

  // --- the sources and their chained timestamps operators
  const gens = [];
  for (let p = 0; p < P; p++) {
    gens.push({ max: MIN, seen: 0, countdown: null, nextProbe: o.interval, backlog: [], done: false, lastRun: 0 });
  }
  const tsOp = byName.timestamps, srcOp = byName.source;
  function broadcast(p, msg) {
    for (let k = 0; k < W; k++) {
      send(`w:${p}:${k}`, 2 + slowLag(k), { to: 'window', sub: k, ch: p, ...msg });
      send(`s:${p}:${k}`, 2, { to: 'sessions', sub: k, ch: p, ...msg });
    }
  }
  function emitRecord(p, key, rts) {
    const g = gens[p];
    srcOp.cnt[p].out++;
    tsOp.cnt[p].in++; tsOp.cnt[p].out++;
    const k = hashKey(key) % W;
    send(`w:${p}:${k}`, 2 + slowLag(k), { to: 'window', sub: k, ch: p, rec: true, key, ts: rts });
    send(`s:${p}:${k}`, 2, { to: 'sessions', sub: k, ch: p, rec: true, key, ts: rts });
    g.max = Math.max(g.max, rts);
    g.seen++;
  }
  // A watermark through the timestamps subtask's gate: when the gate was idle,
  // the ACTIVE it lets out first must reach the channels first too.
  function tsWatermark(p, w) {
    const wasIdle = tsOp.gate[p].idle;
    if (!gateWatermark(tsOp, p, w)) return;
    if (wasIdle) broadcast(p, { idle: false });
    broadcast(p, { wm: w });
  }
  function probe(p) {
    const g = gens[p];
    tsWatermark(p, g.max === MIN ? MIN : g.max - o.bound - 1);
  }
  function periodic(p) {
    const g = gens[p];
    if (o.idleness > 0) {
      if (g.seen > 0) { g.countdown = null; probe(p); }
      else if (g.countdown === null) { g.countdown = t; probe(p); }
      else if (t - g.countdown > o.idleness) {
        if (gateStatus(tsOp, p, true)) broadcast(p, { idle: true });
      } else probe(p);
    } else probe(p);
    g.seen = 0;
  }

  function sample(op, s, worker, final) {
    const c = op.cnt[s];
    const din = c.in - c.lastIn, dout = c.out - c.lastOut;
    const interval = t - c.lastSample;
    if (interval <= 0 && !final) return;
    if (din || dout) {
      emit(worker, { kind: 'throughput', t, op: op.name, subtask: s, interval_ms: interval, in: din, out: dout });
      c.lastIn = c.in; c.lastOut = c.out;
    }
    c.lastSample = t;
  }

  const end = o.duration;
  const finishAt = end + 3000;   // time for MAX to drain everything
  for (t = 0; t <= finishAt; t++) {
    // 1. deliveries due now
    const due = queue.get(t);
    if (due) { queue.delete(t); for (const m of due) deliver(m); }
    // 2. the sources produce a batch every 10 ms
    if (t < end && t % 10 === 0) {
      for (let p = 0; p < P; p++) {
        const g = gens[p];
        const q = o.quiet && o.quiet.partition === p ? o.quiet : null;
        if (q && t >= q.from && t < q.to) {
          if (q.backlog) g.backlog.push(t);   // remember the event time it would have produced
          continue;
        }
        // A resumed partition replays what it held back, oldest first and four
        // times as fast as it came in, before it produces anything new.
        if (q && t >= q.to && g.backlog.length) {
          g.backlog.push(t);
          for (let b = 0; b < 4 && g.backlog.length; b++) {
            const bt = g.backlog.shift();
            const n = Math.floor((o.rate * 10) / 1000 + R());
            for (let i = 0; i < n; i++) {
              emitRecord(p, o.keys[Math.floor(R() * o.keys.length)], o.base + bt - Math.floor(R() * o.disorder));
            }
          }
          g.lastRun = t;
          continue;
        }
        const n = Math.floor((o.rate * 10) / 1000 + R());
        for (let i = 0; i < n; i++) {
          let rts = t - Math.floor(R() * o.disorder);
          const u = R();
          if (t < 6000) { /* the first seconds have nothing to be late for */ }
          else if (u < o.lateShare) rts = t - 2600 - Math.floor(R() * 2500);
          else if (u < o.lateShare + o.lagShare) rts = t - o.bound - Math.floor(R() * 300) - 900;
          emitRecord(p, o.keys[Math.floor(R() * o.keys.length)], o.base + rts);
        }
        g.lastRun = t;
      }
    }
    // 3. periodic watermark probes
    if (t < end && t > 0 && t % o.interval === 0) for (let p = 0; p < P; p++) periodic(p);
    // 4. end of input: a final probe, then MAX from the source through the chain
    if (t === end) {
      for (let p = 0; p < P; p++) {
        gateWatermark(srcOp, p, MAX);
        probe(p);
        tsWatermark(p, MAX);
        gens[p].done = true;
      }
    }
    // 5. throughput samples of every operator subtask, backpressure of the
    // timestamps subtasks (the chain's last operator, the one with channels)
    if (t > 0 && t % o.throughputMs === 0) {
      for (let p = 0; p < P; p++) {
        if (gens[p].done && t > end + o.throughputMs) continue;
        sample(srcOp, p, 0, false);
        sample(tsOp, p, 0, false);
        if (o.slow && t > o.slow.from && t <= o.slow.to + 500) {
          const blocked = Math.min(o.throughputMs, 20 + Math.floor(R() * 70));
          emit(0, { kind: 'backpressure', t, op: 'timestamps', subtask: p, interval_ms: o.throughputMs,
            blocked_ms: blocked, fill: Math.round((0.7 + R() * 0.3) * 1000) / 1000 });
        }
      }
      // A consumer that received nothing in the interval did not run, so it
      // writes no sample and its next interval is longer.
      const chainOf = { window: 'window', sink: 'window', sessions: 'sessions', session_sink: 'sessions', late_sink: 'late_sink' };
      for (const name of Object.keys(chainOf)) {
        const op = byName[name];
        for (let s = 0; s < op.parallelism; s++) {
          if (consumers[chainOf[name]][s].lastRun > t - o.throughputMs) sample(op, s, 1, false);
        }
      }
    }
    if (t % 7 === 0) drain();
  }
  // final samples
  t = finishAt;
  for (const op of ops) for (let s = 0; s < op.parallelism; s++) sample(op, s, op.worker, true);
  drain();
  events.push({
    kind: 'summary', t: finishAt + 1,
    operators: ops.flatMap((op) => op.cnt.map((c, s) => ({ op: op.name, subtask: s, accounting: op.accounting,
      in: c.in, out: c.out, filtered: c.filtered, late_dropped: c.late_dropped, late_side: c.late_side,
      absorbed: c.absorbed, side_out: c.side_out }))),
    events: events.length, dropped_events: 0, lossy: false,
  });
  checkSums(events[events.length - 1]);
  return events;
}

// The summary must add up (CAPTURE.md's accounting table); a generator that
// writes a summary that does not is a broken fixture, so refuse it here.
function checkSums(summary) {
  for (const c of summary.operators) {
    let ok = true;
    if (c.accounting === 'source') ok = c.in === 0;
    else if (c.accounting === 'one_to_one') ok = c.in === c.out + c.filtered + c.late_dropped + c.late_side;
    else if (c.accounting === 'window') ok = c.in === c.absorbed + c.late_dropped + c.late_side && c.late_side === c.side_out;
    else if (c.accounting === 'sink') ok = c.out === 0;
    if (!ok) throw new Error(`summary of ${c.op}[${c.subtask}] does not add up: ${JSON.stringify(c)}`);
  }
}

// ---- encoders --------------------------------------------------------------------

// JSON.stringify keeps the insertion order, which is the documented key order.
function writeJsonl(path, events) {
  const fd = openSync(path, 'w');
  let buf = [];
  let size = 0;
  for (const ev of events) {
    const line = JSON.stringify(ev) + '\n';
    buf.push(line);
    size += line.length;
    if (size > 1 << 22) { writeSync(fd, buf.join('')); buf = []; size = 0; }
  }
  writeSync(fd, buf.join(''));
  closeSync(fd);
}

// msgpack as msgpack-c packs it: the smallest integer form (positive values
// as positive fixint / uint 8..64, negative ones as negative fixint / int
// 8..64), doubles as float 64, strings as fixstr / str 8/16/32.
class Packer {
  constructor() { this.buf = Buffer.alloc(1 << 20); this.n = 0; this.chunks = []; }
  room(k) {
    if (this.n + k > this.buf.length) {
      this.chunks.push(this.buf.subarray(0, this.n));
      this.buf = Buffer.alloc(Math.max(1 << 20, k));
      this.n = 0;
    }
  }
  byte(b) { this.room(1); this.buf[this.n++] = b; }
  int(v) {
    this.room(9);
    const b = this.buf;
    if (v >= 0) {
      if (v < 128) b[this.n++] = v;
      else if (v < 256) { b[this.n++] = 0xcc; b[this.n++] = v; }
      else if (v < 65536) { b[this.n++] = 0xcd; b.writeUInt16BE(v, this.n); this.n += 2; }
      else if (v < 4294967296) { b[this.n++] = 0xce; b.writeUInt32BE(v, this.n); this.n += 4; }
      else { b[this.n++] = 0xcf; b.writeBigUInt64BE(BigInt(v), this.n); this.n += 8; }
    } else {
      if (v >= -32) b[this.n++] = v & 0xff;
      else if (v >= -128) { b[this.n++] = 0xd0; b.writeInt8(v, this.n); this.n += 1; }
      else if (v >= -32768) { b[this.n++] = 0xd1; b.writeInt16BE(v, this.n); this.n += 2; }
      else if (v >= -2147483648) { b[this.n++] = 0xd2; b.writeInt32BE(v, this.n); this.n += 4; }
      else { b[this.n++] = 0xd3; b.writeBigInt64BE(BigInt(v), this.n); this.n += 8; }
    }
  }
  str(s) {
    const bytes = Buffer.from(s, 'utf8');
    const k = bytes.length;
    this.room(5 + k);
    const b = this.buf;
    if (k < 32) b[this.n++] = 0xa0 | k;
    else if (k < 256) { b[this.n++] = 0xd9; b[this.n++] = k; }
    else if (k < 65536) { b[this.n++] = 0xda; b.writeUInt16BE(k, this.n); this.n += 2; }
    else { b[this.n++] = 0xdb; b.writeUInt32BE(k, this.n); this.n += 4; }
    bytes.copy(b, this.n);
    this.n += k;
  }
  header(k, fix, s16, s32) {
    this.room(5);
    const b = this.buf;
    if (k < 16) b[this.n++] = fix | k;
    else if (k < 65536) { b[this.n++] = s16; b.writeUInt16BE(k, this.n); this.n += 2; }
    else { b[this.n++] = s32; b.writeUInt32BE(k, this.n); this.n += 4; }
  }
  value(v) {
    if (v === null || v === undefined) this.byte(0xc0);
    else if (v === true) this.byte(0xc3);
    else if (v === false) this.byte(0xc2);
    else if (typeof v === 'string') this.str(v);
    else if (typeof v === 'number') {
      if (Number.isInteger(v)) this.int(v);
      else { this.room(9); this.buf[this.n++] = 0xcb; this.buf.writeDoubleBE(v, this.n); this.n += 8; }
    } else if (Array.isArray(v)) {
      this.header(v.length, 0x90, 0xdc, 0xdd);
      for (const x of v) this.value(x);
    } else {
      const keys = Object.keys(v);
      this.header(keys.length, 0x80, 0xde, 0xdf);
      for (const key of keys) { this.str(key); this.value(v[key]); }
    }
  }
  // `fill` is a ratio: msgpack-c packs it as a double even when it is 1.0.
  event(ev) {
    const keys = Object.keys(ev);
    this.header(keys.length, 0x80, 0xde, 0xdf);
    for (const key of keys) {
      this.str(key);
      if (key === 'fill') { this.room(9); this.buf[this.n++] = 0xcb; this.buf.writeDoubleBE(ev[key], this.n); this.n += 8; }
      else this.value(ev[key]);
    }
  }
  bytes() { return Buffer.concat([...this.chunks, this.buf.subarray(0, this.n)]); }
}

function msgpackOf(events) {
  const p = new Packer();
  for (const ev of events) p.event(ev);
  return p.bytes();
}

// ---- main --------------------------------------------------------------------------

const args = process.argv.slice(2);
const noBig = args.includes('--no-big');
const outDir = args.find((a) => !a.startsWith('--')) ?? 'captures';
mkdirSync(outDir, { recursive: true });

// --keep: nothing to do when every file is there and newer than this script
// (the ctest fixture runs on every ctest run; the big files take a while).
if (args.includes('--keep')) {
  const made = statSync(fileURLToPath(import.meta.url)).mtimeMs;
  const names = ['demo.jsonl', 'demo.msgpack', 'idle-without-idleness.jsonl', 'idle-with-idleness.jsonl', 'bad-json.jsonl',
    'truncated.msgpack', 'not-job-first.jsonl', 'not-a-capture.txt', ...(noBig ? [] : ['big.jsonl', 'big.msgpack'])];
  if (names.every((n) => existsSync(join(outDir, n)) && statSync(join(outDir, n)).mtimeMs >= made)) {
    console.log(`${outDir}: the synthetic captures are up to date`);
    process.exit(0);
  }
}

function report(name, n) { console.log(`${join(outDir, name)}: ${n} events`); }

// The flagship run: an idle partition with idleness on, a slow window subtask
// (backpressure upstream), late firings and late elements; event time starts
// at an epoch timestamp, so the msgpack encoding needs 64-bit integers.
const demo = simulate({
  seed: 7, duration: 20000, base: 1700000000000, idleness: 1000,
  quiet: { partition: 2, from: 6000, to: 9000, backlog: false },
  slow: { subtask: 0, from: 11000, to: 13000 },
});
writeJsonl(join(outDir, 'demo.jsonl'), demo); report('demo.jsonl', demo.length);
const demoPack = msgpackOf(demo);
writeFileSync(join(outDir, 'demo.msgpack'), demoPack); report('demo.msgpack', demo.length);

// The idleness experiment: partition 2 stops at 4 s and comes back at 12 s
// replaying what it held back.
const quiet = { partition: 2, from: 4000, to: 12000, backlog: true };
const without = simulate({ seed: 11, duration: 18000, idleness: 0, quiet, lateShare: 0.002 });
writeJsonl(join(outDir, 'idle-without-idleness.jsonl'), without); report('idle-without-idleness.jsonl', without.length);
const withIdle = simulate({ seed: 11, duration: 18000, idleness: 1000, quiet, lateShare: 0.002 });
writeJsonl(join(outDir, 'idle-with-idleness.jsonl'), withIdle); report('idle-with-idleness.jsonl', withIdle.length);

// Malformed files.
{
  const lines = demo.slice(0, 30).map((e) => JSON.stringify(e));
  lines[16] = '{"kind":"watermark","t":1200,"op":"timestamps" "subtask":1,"watermark":4999}';
  writeFileSync(join(outDir, 'bad-json.jsonl'), lines.join('\n') + '\n');
  report('bad-json.jsonl', 30);
  writeFileSync(join(outDir, 'not-job-first.jsonl'), demo.slice(1, 20).map((e) => JSON.stringify(e)).join('\n') + '\n');
  report('not-job-first.jsonl', 19);
  writeFileSync(join(outDir, 'not-a-capture.txt'), 'This is a shopping list, not a capture.\nmilk\neggs\n');
  report('not-a-capture.txt', 0);
  // Cut in the middle of the 40th event, so the decoder runs out of bytes
  // inside a map.
  const prefix = msgpackOf(demo.slice(0, 40)).length;
  const cut = prefix - 7;
  writeFileSync(join(outDir, 'truncated.msgpack'), demoPack.subarray(0, cut));
  report(`truncated.msgpack (${cut} bytes)`, 39);
}

// Just over a million events: many keys and short windows, so firings,
// cleanups and session merges dominate, as they do in a busy real job.
if (!noBig) {
  const keys = Array.from({ length: 3000 }, (_, i) => `k${String(i).padStart(4, '0')}`);
  const big = simulate({ seed: 3, duration: 96000, keys, rate: 2500, size: 1000, gap: 1500, idleness: 1000,
    quiet: { partition: 1, from: 30000, to: 40000, backlog: false }, slow: { subtask: 1, from: 60000, to: 63000 } });
  writeJsonl(join(outDir, 'big.jsonl'), big); report('big.jsonl', big.length);
  writeFileSync(join(outDir, 'big.msgpack'), msgpackOf(big)); report('big.msgpack', big.length);
}
