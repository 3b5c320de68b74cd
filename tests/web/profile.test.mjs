// The step profile without a browser or a server: the /metrics parser (Prometheus' text format),
// the readings and the figures between two of them (clients/web/profile.js), the panel's notes,
// and the poller's bounds (clients/web/profile_panel.js: one request at a time, none once stopped).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import {
  parsePrometheus,
  parseValue,
  readStepProfile,
  stepProfileDelta,
  totalsDelta,
  formatMs,
  StepProfile,
} from '../../clients/web/profile.js';
import { MetricsPoller } from '../../clients/web/profile_panel.js';

// The server's stages, in its order (the list).
const STAGES = ['sources', 'assignments', 'phases', 'grid', 'desires', 'pathing', 'pace', 'avoidance', 'integrate', 'collisions', 'walls', 'states', 'formations', 'exits'];
const BUCKETS = ['1e-06', '1e-05', '0.0001', '0.001', '0.01', '+Inf'];

// A /metrics text as the server writes it: other families around, the tick's histogram, and one
// stage histogram per entry of `stages` ({stage: [sumSeconds, count]}).
function metricsText({ stages = {}, step = null, relay = false } = {}) {
  const out = ['# HELP herd_sessions WebSocket sessions open.', '# TYPE herd_sessions gauge', 'herd_sessions 1'];
  if (step) {
    out.push('# HELP herd_tick_duration_seconds Time one world step took.', '# TYPE herd_tick_duration_seconds histogram');
    for (const le of BUCKETS) out.push(`herd_tick_duration_seconds_bucket{le="${le}"} ${step[1]}`);
    out.push(`herd_tick_duration_seconds_sum ${step[0]}`, `herd_tick_duration_seconds_count ${step[1]}`);
  }
  if (Object.keys(stages).length > 0) {
    out.push('# HELP herd_step_stage_seconds Time each stage of the last world steps took.', '# TYPE herd_step_stage_seconds histogram');
    for (const [stage, [sum, count]] of Object.entries(stages)) {
      for (const le of BUCKETS) out.push(`herd_step_stage_seconds_bucket{stage="${stage}",le="${le}"} ${count}`);
      out.push(`herd_step_stage_seconds_sum{stage="${stage}"} ${sum}`, `herd_step_stage_seconds_count{stage="${stage}"} ${count}`);
    }
  }
  if (relay) out.push('# TYPE herd_relay_upstream_connected gauge', 'herd_relay_upstream_connected 1');
  out.push('herd_agents 48');
  return out.join('\n') + '\n';
}

// Every stage at `us` microseconds a step for `count` steps, the step at `stepUs`.
function steady(count, us = 10, stepUs = 200) {
  return metricsText({
    stages: Object.fromEntries(STAGES.map((s, i) => [s, [(count * (us + i) * 1e-6).toFixed(9), count]])),
    step: [(count * stepUs * 1e-6).toFixed(9), count],
  });
}

describe('parsePrometheus', () => {
  it('reads names, labels and values, skipping comments, blank and broken lines', () => {
    const text = [
      '# HELP x_total A counter.',
      '# TYPE x_total counter',
      '',
      'x_total 42',
      '  spaced_total\t 7 1700000000000  ',
      'with_labels{a="1",b="two"} 3.5',
      'trailing_comma{a="1",} 1',
      'empty_labels{} 2',
      'spaced_labels{ a = "1" , b="2" } 4',
      'broken{a="1" 5',
      'no_value{a="1"}',
      'bad_value 12abc',
      'too many fields here',
      '{a="1"} 3',
      'colons:are_ok 9',
    ].join('\n');
    assert.deepEqual(parsePrometheus(text), [
      { name: 'x_total', labels: {}, value: 42 },
      { name: 'spaced_total', labels: {}, value: 7 },
      { name: 'with_labels', labels: { a: '1', b: 'two' }, value: 3.5 },
      { name: 'trailing_comma', labels: { a: '1' }, value: 1 },
      { name: 'empty_labels', labels: {}, value: 2 },
      { name: 'spaced_labels', labels: { a: '1', b: '2' }, value: 4 },
      { name: 'colons:are_ok', labels: {}, value: 9 },
    ]);
  });

  it('unescapes \\", \\\\ and \\n in label values, and keeps , } = inside them', () => {
    const [s] = parsePrometheus('m{stage="say \\"hi\\"",path="C:\\\\dir",text="a\\nb",odd="x,}=y"} 1\r\n');
    assert.deepEqual(s.labels, { stage: 'say "hi"', path: 'C:\\dir', text: 'a\nb', odd: 'x,}=y' });
    assert.equal(s.value, 1);
    assert.deepEqual(parsePrometheus('m{a="unterminated} 1\nm{a="ends in \\'), []);
  });

  it('reads NaN, +Inf, -Inf and exponents as Go writes them', () => {
    assert.ok(Number.isNaN(parseValue('NaN')));
    assert.equal(parseValue('+Inf'), Infinity);
    assert.equal(parseValue('-Inf'), -Infinity);
    assert.equal(parseValue('1e-06'), 1e-6);
    assert.equal(parseValue('-2.5E+3'), -2500);
    assert.equal(parseValue('.5'), 0.5);
    assert.equal(parseValue('0x10'), null);
    assert.equal(parseValue(''), null);
    assert.equal(parseValue('Infinity'), null);
    const values = parsePrometheus('a NaN\nb +Inf\nc -Inf').map((s) => s.value);
    assert.ok(Number.isNaN(values[0]));
    assert.deepEqual(values.slice(1), [Infinity, -Infinity]);
  });
});

describe('readStepProfile', () => {
  it("reads each stage's sum and count in the server's order, and the whole step's", () => {
    const r = readStepProfile(parsePrometheus(steady(100)), 5);
    assert.equal(r.at, 5);
    assert.deepEqual(r.stages.map((s) => s.stage), STAGES);
    assert.deepEqual(r.stages[0].totals, { sum: 0.001, count: 100 });
    assert.deepEqual(r.step, { sum: 0.02, count: 100 });
    assert.equal(r.relay, false);
  });

  it('finds the stage label among others in any order, keeps the first of a repeated series', () => {
    const text = [
      'herd_step_stage_seconds_count{le="ignored",stage="grid"} 10',
      'herd_step_stage_seconds_sum{zone="a",stage="grid"} 0.5',
      'herd_step_stage_seconds_sum{stage="grid"} 99',
      'herd_step_stage_seconds_sum{stage="with \\"quotes\\""} 0.25',
      'herd_step_stage_seconds_count{stage="with \\"quotes\\""} 5',
      'herd_step_stage_seconds_sum 1',
      'herd_step_stage_seconds_count 1',
    ].join('\n');
    const r = readStepProfile(parsePrometheus(text), 0);
    assert.deepEqual(r.stages, [
      { stage: 'grid', totals: { sum: 0.5, count: 10 } },
      { stage: 'with "quotes"', totals: { sum: 0.25, count: 5 } },
    ]);
  });

  it('leaves out a stage without its sum or its count, and the step when its series is absent', () => {
    const text = 'herd_step_stage_seconds_sum{stage="a"} 1\nherd_step_stage_seconds_count{stage="b"} 2\nherd_tick_duration_seconds_sum 3';
    const r = readStepProfile(parsePrometheus(text), 0);
    assert.deepEqual(r.stages, []);
    assert.equal(r.step, null);
  });

  it("knows a relay's text by its relay series", () => {
    const r = readStepProfile(parsePrometheus(metricsText({ step: [0, 0], relay: true })), 0);
    assert.equal(r.relay, true);
    assert.deepEqual(r.stages, []);
    assert.deepEqual(r.step, { sum: 0, count: 0 });
  });
});

describe('stepProfileDelta', () => {
  const reading = (text, at) => readStepProfile(parsePrometheus(text), at);

  it('gives each stage Δsum / Δcount in ms, its share of the step, and the step', () => {
    const d = stepProfileDelta(reading(steady(100), 1000), reading(steady(160), 2000));
    assert.equal(d.seconds, 1);
    assert.equal(d.steps, 60);
    assert.ok(Math.abs(d.stepMs - 0.2) < 1e-9, String(d.stepMs));
    assert.deepEqual(d.stages.map((s) => s.stage), STAGES);
    d.stages.forEach((s, i) => {
      assert.equal(s.steps, 60);
      assert.ok(Math.abs(s.ms - (10 + i) / 1000) < 1e-9, `${s.stage} ${s.ms}`);
      assert.ok(Math.abs(s.share - (10 + i) / 200) < 1e-9, `${s.stage} ${s.share}`);
    });
    assert.equal(d.restarted, false);
  });

  it('gives a stage with no steps in the interval no figures (a paused world)', () => {
    const prev = reading(metricsText({ stages: { grid: [0.5, 10], walls: [0.1, 10] }, step: [1, 10] }), 0);
    const cur = reading(metricsText({ stages: { grid: [0.5, 10], walls: [0.2, 20] }, step: [2, 20] }), 1000);
    const d = stepProfileDelta(prev, cur);
    assert.deepEqual(d.stages[0], { stage: 'grid', ms: null, share: null, steps: 0 });
    assert.equal(d.stages[1].steps, 10);
    assert.ok(Math.abs(d.stages[1].ms - 10) < 1e-9, String(d.stages[1].ms)); // 0.1 s over 10 steps
    const paused = stepProfileDelta(prev, prev);
    assert.equal(paused.steps, 0);
    assert.equal(paused.stepMs, null);
    assert.ok(paused.stages.every((s) => s.ms === null && s.share === null));
  });

  it('counts from zero after a counter went down (the server restarted)', () => {
    const d = stepProfileDelta(reading(steady(5000), 0), reading(steady(30), 1000));
    assert.equal(d.restarted, true);
    assert.equal(d.steps, 30);
    assert.ok(Math.abs(d.stepMs - 0.2) < 1e-9);
    assert.ok(Math.abs(d.stages[0].ms - 0.01) < 1e-9);
    // A sum that went down with a count that did not is a restart too.
    assert.deepEqual(totalsDelta({ sum: 2, count: 5 }, { sum: 1, count: 9 }), { sum: 1, count: 9, reset: true });
    assert.deepEqual(totalsDelta({ sum: 1, count: 5 }, { sum: 2, count: 9 }), { sum: 1, count: 4, reset: false });
    // A stage new since the last reading counts from zero, without a restart.
    assert.deepEqual(totalsDelta(undefined, { sum: 1, count: 9 }), { sum: 1, count: 9, reset: false });
  });

  it('gives no figure from NaN or infinite values, and no NaN anywhere', () => {
    const prev = reading(metricsText({ stages: { a: [1, 10], b: ['NaN', 10], c: [1, 10] }, step: ['+Inf', 10] }), 0);
    const cur = reading(metricsText({ stages: { a: [2, 20], b: [3, 20], c: ['+Inf', 20] }, step: ['+Inf', 20] }), 1000);
    const d = stepProfileDelta(prev, cur);
    assert.equal(d.stepMs, null);
    assert.deepEqual(d.stages.map((s) => s.ms), [100, null, null]);
    // Without the step's mean the shares are of the stages' sum.
    assert.equal(d.stages[0].share, 1);
    assert.equal(d.steps, 10);
    assert.equal(totalsDelta({ sum: -Infinity, count: 1 }, { sum: 1, count: 2 }), null);
    assert.equal(totalsDelta({ sum: 1, count: 1 }, { sum: 2, count: NaN }), null);
  });

  it('shares the stages of the sum of them when the step series is absent', () => {
    const prev = reading(metricsText({ stages: { a: [0, 0], b: [0, 0] } }), 0);
    const cur = reading(metricsText({ stages: { a: [0.003, 10], b: [0.001, 10] } }), 1000);
    const d = stepProfileDelta(prev, cur);
    assert.equal(d.stepMs, null);
    assert.equal(d.steps, 10);
    assert.deepEqual(d.stages.map((s) => Math.round(s.share * 1e9) / 1e9), [0.75, 0.25]);
  });
});

describe('formatMs', () => {
  it('keeps about three significant digits, down to a tenth of a microsecond', () => {
    assert.deepEqual([123.4, 12.34, 1.234, 0.1234, 0.01234, 0.00012, 0, NaN].map(formatMs), ['123', '12.3', '1.23', '0.123', '0.0123', '0.0001', '0.0000', '–']);
  });
});

describe('StepProfile (the panel’s notes)', () => {
  const text = (t, at) => ({ kind: 'text', text: t, at });

  it('measures, then shows the figures of the last second, then says it is paused and keeps them dimmed', () => {
    const p = new StepProfile();
    assert.equal(p.view().note, 'reading /metrics…');
    p.take(text(steady(100), 0));
    assert.deepEqual(p.view(), { note: 'measuring: the first figures in a second', delta: null, stale: false });
    p.take(text(steady(160), 1000));
    const v = p.view();
    assert.equal(v.note, 'mean of 60 steps in the last 1.0 s');
    assert.equal(v.delta.stages.length, STAGES.length);
    assert.equal(v.stale, false);
    p.take(text(steady(160), 2000));
    assert.equal(p.view().note, 'paused: no steps in the last second (figures of the steps before)');
    assert.equal(p.view().stale, true);
    assert.equal(p.view().delta, v.delta);
    p.take(text(steady(161), 3000));
    assert.equal(p.view().note, 'mean of 1 step in the last 1.0 s');
    p.reset();
    assert.deepEqual(p.view(), { note: 'reading /metrics…', delta: null, stale: false });
  });

  it('says plainly when paused from the start', () => {
    const p = new StepProfile();
    p.take(text(steady(100), 0));
    p.take(text(steady(100), 1000));
    assert.deepEqual(p.view(), { note: 'paused: no steps in the last second', delta: null, stale: false });
  });

  it('says what the server answered instead, and measures afresh after it', () => {
    const p = new StepProfile();
    p.take(text(steady(100), 0));
    p.take({ kind: 'http', status: 403, statusText: 'Forbidden' });
    assert.deepEqual(p.view(), { note: 'no step profile: /metrics answered 403 Forbidden', delta: null, stale: false });
    p.take({ kind: 'http', status: 401, statusText: '' });
    assert.equal(p.view().note, 'no step profile: /metrics answered 401');
    p.take({ kind: 'error', message: 'Failed to fetch' });
    assert.equal(p.view().note, 'no step profile: /metrics did not answer (Failed to fetch)');
    p.take(text(steady(200), 5000));
    assert.equal(p.view().note, 'measuring: the first figures in a second', 'a reading from before the failure was used');
  });

  it('tells an older server from a relay when the series is absent', () => {
    const p = new StepProfile();
    p.take(text(metricsText({ step: [1, 10] }), 0));
    assert.equal(p.view().note, "no step profile: this server's /metrics has no herd_step_stage_seconds (an older server?)");
    p.take(text(metricsText({ step: [0, 0], relay: true }), 1000));
    assert.equal(p.view().note, 'no step profile here (relay)');
    p.take(text('<html>not metrics</html>', 2000));
    assert.match(p.view().note, /has no herd_step_stage_seconds/);
  });

  it('says when the server restarted between two readings', () => {
    const p = new StepProfile();
    p.take(text(steady(5000), 0));
    p.take(text(steady(40), 1000));
    assert.equal(p.view().note, 'mean of 40 steps in the last 1.0 s (the server restarted: counted from its start)');
  });
});

// A manual clock and fetch for MetricsPoller: timers run when the test advances the clock, and
// each fetch waits until the test answers it.
function fakeHost() {
  let now = 0;
  let nextId = 1;
  const timers = new Map();
  const pending = [];
  const host = {
    fetches: 0,
    maxInFlight: 0,
    inFlight: 0,
    now: () => now,
    setTimeout: (fn, ms) => {
      const id = nextId++;
      timers.set(id, { at: now + ms, fn });
      return id;
    },
    clearTimeout: (id) => timers.delete(id),
    fetch: (url, init) => {
      host.fetches++;
      host.inFlight++;
      host.maxInFlight = Math.max(host.maxInFlight, host.inFlight);
      return new Promise((resolve, reject) => {
        const entry = { url, init, settle: null };
        const done = () => host.inFlight--;
        entry.settle = (res) => (done(), resolve(res));
        init.signal.addEventListener('abort', () => {
          if (pending.includes(entry)) {
            pending.splice(pending.indexOf(entry), 1);
            done();
            reject(new DOMException('The operation was aborted.', 'AbortError'));
          }
        });
        pending.push(entry);
      });
    },
  };
  const flush = () => new Promise((r) => setImmediate(r));
  return {
    host,
    pending,
    // Answers the oldest request with this status and text.
    async answer(status = 200, body = 'x 1\n') {
      const entry = pending.shift();
      assert.ok(entry, 'no request to answer');
      entry.settle({ ok: status >= 200 && status < 300, status, statusText: status === 200 ? 'OK' : 'Forbidden', text: async () => body });
      await flush();
      await flush();
    },
    async advance(ms) {
      const end = now + ms;
      for (;;) {
        const due = [...timers].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
        if (!due) break;
        timers.delete(due[0]);
        now = Math.max(now, due[1].at);
        due[1].fn();
        await flush();
        await flush();
      }
      now = end;
    },
    flush,
  };
}

describe('MetricsPoller', () => {
  it('asks once a second, one request at a time, even when one takes longer than a second', async () => {
    const f = fakeHost();
    const results = [];
    const p = new MetricsPoller({ onResult: (r) => results.push(r), host: f.host, intervalMs: 1000, timeoutMs: 5000 });
    p.start();
    p.start(); // a second start changes nothing
    assert.equal(f.host.fetches, 1);
    assert.equal(f.pending[0].url, '/metrics');
    assert.equal(f.pending[0].init.cache, 'no-store');
    await f.advance(300);
    await f.answer(200, 'a 1\n');
    assert.deepEqual(results, [{ kind: 'text', text: 'a 1\n', at: 300 }]);
    await f.advance(699);
    assert.equal(f.host.fetches, 1, 'asked again before the second was up');
    await f.advance(1);
    assert.equal(f.host.fetches, 2, 'a second after the first began');
    // This one is slow: no other request while it is out, the next at once when it is answered.
    await f.advance(3000);
    assert.equal(f.host.fetches, 2);
    await f.answer(403);
    assert.deepEqual(results[1], { kind: 'http', status: 403, statusText: 'Forbidden' });
    await f.advance(0);
    assert.equal(f.host.fetches, 3);
    assert.equal(f.host.maxInFlight, 1);
    p.stop();
  });

  it('gives up a request after the timeout and says so, then asks again', async () => {
    const f = fakeHost();
    const results = [];
    const p = new MetricsPoller({ onResult: (r) => results.push(r), host: f.host, intervalMs: 1000, timeoutMs: 5000 });
    p.start();
    await f.advance(5000);
    assert.deepEqual(results, [{ kind: 'error', message: 'no answer in 5 s' }]);
    await f.advance(0);
    assert.equal(f.host.fetches, 2);
    assert.equal(f.host.maxInFlight, 1);
    p.stop();
  });

  it('once stopped, aborts the request in flight, drops its answer and asks nothing more', async () => {
    const f = fakeHost();
    const results = [];
    const p = new MetricsPoller({ onResult: (r) => results.push(r), host: f.host, intervalMs: 1000, timeoutMs: 5000 });
    p.start();
    await f.answer();
    p.stop();
    await f.advance(10_000);
    assert.equal(f.host.fetches, 1, 'asked after stop');
    p.start();
    assert.equal(f.host.fetches, 2);
    p.stop(); // aborts it
    await f.flush();
    await f.advance(10_000);
    assert.equal(results.length, 1, 'an aborted request gave a result');
    assert.equal(f.host.inFlight, 0);
    assert.equal(f.host.fetches, 2);
  });

  it('started again while an aborted request settles, waits for it: never two at once', async () => {
    const f = fakeHost();
    const results = [];
    const p = new MetricsPoller({ onResult: (r) => results.push(r), host: f.host, intervalMs: 1000, timeoutMs: 5000 });
    // A fetch that ignores the abort and settles only when answered.
    const fetch = f.host.fetch;
    f.host.fetch = (url, init) => fetch(url, { ...init, signal: new AbortController().signal });
    p.start();
    p.stop();
    p.start();
    assert.equal(f.host.fetches, 1, 'a second request while the first was out');
    await f.answer(200, 'old 1\n');
    assert.equal(results.length, 0, "the stopped run's answer was used");
    assert.equal(f.host.fetches, 2, 'the new run did not ask');
    await f.answer(200, 'new 1\n');
    assert.equal(results[0].text, 'new 1\n');
    assert.equal(f.host.maxInFlight, 1);
    p.stop();
  });
});
