// The container a user starts first, for real: the image scripts/test built from this tree, run
// with the committed docker-compose.yml on a free host port (HERD_PORT), through a real container
// engine (podman or Docker: HERD_ENGINE, HERD_COMPOSE), reached only through the published port.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const engine = process.env.HERD_ENGINE || 'podman';
const [composeCmd, ...composePre] = (process.env.HERD_COMPOSE || 'podman-compose').split(' ');
const image = process.env.HERD_IMAGE;
const ctl = process.env.HERD_CTL || join(repo, 'build', 'herd-ctl');
const project = `herdtest${process.pid}`;
assert.ok(image, 'HERD_IMAGE names the image to test (scripts/test builds it)');

let port;
let env;

function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.on('error', rej);
    s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => res(p)); });
  });
}

// Runs a command, failing with its output when it fails.
function run(cmd, args, options = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', env, cwd: repo, timeout: 120000, ...options });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stdout}\n${r.stderr}`);
  return r.stdout;
}
const compose = (...args) => run(composeCmd, [...composePre, '-p', project, '-f', join(repo, 'docker-compose.yml'), ...args]);
const ctlRun = (...args) => run(ctl, ['--url', `ws://127.0.0.1:${port}/ws`, '--timeout', '10', ...args]);

// The compose service's container (one).
function container() {
  const names = run(engine, ['ps', '-a', '--filter', `label=com.docker.compose.project=${project}`, '--format', '{{.Names}}'])
    .split('\n').filter(Boolean);
  assert.equal(names.length, 1, `one container in project ${project}: ${names}`);
  return names[0];
}
const inspect = (format) => run(engine, ['inspect', '--format', format, container()]).trim();

// Waits (bounded) until /healthz answers 200 through the published port.
async function waitHealthy(seconds = 60) {
  const deadline = Date.now() + seconds * 1000;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const r = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2000) });
      if (r.status === 200) return;
      last = `status ${r.status}`;
    } catch (e) {
      last = String(e.cause?.code || e.message);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`/healthz did not answer 200 within ${seconds} s (last: ${last}); logs:\n${logs()}`);
}
const logs = () => spawnSync(engine, ['logs', container()], { encoding: 'utf8', env }).stdout;

// One snapshot as a viewer sees it.
function snapshot() {
  const line = ctlRun('watch', '--count', '1').split('\n').find((l) => l.includes('"snapshot"'));
  assert.ok(line, 'a snapshot');
  return JSON.parse(line);
}

before(async () => {
  port = await freePort();
  env = { ...process.env, HERD_PORT: String(port), HERD_IMAGE: image, HERD_SCENARIO: 'empty', HERD_CHECKPOINT_INTERVAL: '1',
    HERD_COMMAND_TOKEN: 'container-test-token' };  // herd-ctl reads it too
  compose('up', '-d');
  await waitHealthy();
});

after(() => {
  spawnSync(composeCmd, [...composePre, '-p', project, '-f', join(repo, 'docker-compose.yml'), 'down', '-v'], { env, cwd: repo, timeout: 120000 });
});

let spawned;
let tickBefore;

test('/healthz and the viewer answer through the published port', async () => {
  const health = await fetch(`http://127.0.0.1:${port}/healthz`);
  assert.equal(health.status, 200);
  const page = await fetch(`http://127.0.0.1:${port}/`);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /<canvas/);
  assert.equal((await fetch(`http://127.0.0.1:${port}/main.js`)).status, 200);
});

test('a WebSocket client spawns agents and receives snapshots through the published port', () => {
  const ack = JSON.parse(ctlRun('--json', 'spawn', '7').trim().split('\n').at(-1));
  assert.equal(ack.type, 'ack');
  spawned = ack.agents;
  assert.equal(spawned.length, 7);
  const s = snapshot();
  assert.deepEqual(s.agents.map((a) => a.id).sort((a, b) => a - b), spawned);
  tickBefore = s.tick;
  assert.ok(tickBefore > 0);
  // The port is published: without the compose file's token nobody commands.
  const anonymous = spawnSync(ctl, ['--url', `ws://127.0.0.1:${port}/ws`, '--timeout', '10', 'spawn', '1'],
    { encoding: 'utf8', env: { ...env, HERD_COMMAND_TOKEN: '' } });
  assert.notEqual(anonymous.status, 0, anonymous.stdout);
  assert.match(anonymous.stdout + anonymous.stderr, /forbidden|token/);
  assert.doesNotMatch(logs(), /#token=/, 'a token was given: none is made');
});

test('the container runs as a non-root user and its health check reports healthy', async () => {
  const name = container();
  assert.notEqual(run(engine, ['exec', name, 'id', '-u']).trim(), '0');
  assert.equal(inspect('{{.Config.User}}'), 'herd');
  // The image's HEALTHCHECK (herd-server --probe). Podman runs it from systemd timers, which a
  // machine without systemd lacks; `podman healthcheck run` runs the same check by hand.
  const deadline = Date.now() + 60000;
  let status = '';
  while (Date.now() < deadline) {
    if (engine === 'podman') spawnSync(engine, ['healthcheck', 'run', name], { env });
    status = inspect('{{.State.Health.Status}}');
    if (status === 'healthy') break;
    await new Promise((r) => setTimeout(r, 500));
  }
  assert.equal(status, 'healthy');
});

test('compose down (volume kept) then up: the world resumes from the checkpoint', async () => {
  compose('down');
  compose('up', '-d');
  await waitHealthy();
  const s = snapshot();
  assert.deepEqual(s.agents.map((a) => a.id).sort((a, b) => a - b), spawned, 'the same agents');
  assert.ok(s.tick > tickBefore, `tick ${s.tick} goes on from ${tickBefore}, not from 0`);
  assert.match(logs(), /restored from checkpoint/);
});

// A container state time (podman: "2026-11-25 02:37:03.16 +0000 UTC", Docker: RFC 3339) in ms.
function parseTime(text) {
  const m = text.match(/(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)(\.\d+)?\s*(Z|[+-]\d\d:?\d\d)?/);
  assert.ok(m, `a time: ${text}`);
  const zone = !m[4] || m[4] === 'Z' ? 'Z' : `${m[4].slice(0, 3)}:${m[4].slice(-2)}`;
  return Date.parse(`${m[1]}T${m[2]}${(m[3] || '').slice(0, 4)}${zone}`);
}

test('SIGTERM (stop) writes a final checkpoint and exits 0 within 2 s', () => {
  const name = container();
  const sent = Date.now();
  run(engine, ['stop', '-t', '10', name]);
  const returned = Date.now();
  assert.equal(inspect('{{.State.ExitCode}}'), '0');
  const out = logs();
  assert.match(out, /SIGTERM, shutting down/);
  assert.match(out.slice(out.lastIndexOf('SIGTERM, shutting down')), /checkpoint_written/);
  // The server's exit, as the engine recorded it; the stop command itself also waits for the
  // engine's own clean-up afterwards.
  const exited = parseTime(inspect('{{.State.FinishedAt}}')) - sent;
  console.log(`# the server exited ${exited} ms after SIGTERM; ${engine} stop returned after ${returned - sent} ms`);
  assert.ok(exited < 2000, `exited ${exited} ms after SIGTERM`);
});
