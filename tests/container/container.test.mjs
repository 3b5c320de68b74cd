// The container a user starts first, for real: the image scripts/test built from this tree, run
// with the committed docker-compose.yml on a free host port (HERD_PORT), through a real container
// engine (podman or Docker: HERD_ENGINE, HERD_COMPOSE), reached only through the published port;
// and the file's `relay` profile: the server and two relays, through their own published ports.
// One file past 400 lines: its tests share the image and the compose project started once.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { WsClient } from './ws.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const engine = process.env.HERD_ENGINE || 'podman';
const [composeCmd, ...composePre] = (process.env.HERD_COMPOSE || 'podman-compose').split(' ');
const image = process.env.HERD_IMAGE;
const ctl = process.env.HERD_CTL || join(repo, 'build', 'herd-ctl');
const project = `herdtest${process.pid}`;
assert.ok(image, 'HERD_IMAGE names the image to test (scripts/test builds it)');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Whether the compose tool knows profiles (docker compose, newer podman-compose). Debian
// 12's podman-compose 1.0.3 has no --profile and starts every service, the relays too, on a plain
// `up`: there the server alone is started by naming it.
const profiles = /--profile\b/.test(spawnSync(composeCmd, [...composePre, '--help'], { encoding: 'utf8' }).stdout || '');
const upHerd = profiles ? ['up', '-d'] : ['up', '-d', 'herd'];
if (!profiles) console.log(`# ${process.env.HERD_COMPOSE || 'podman-compose'} knows no profiles: \`up\` would start the relays too; the server is started as \`up -d herd\``);

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

// The image's HEALTHCHECK (herd-server --probe) of a container, once it says healthy or after 60 s.
// Podman runs it from systemd timers, which a machine without systemd lacks; `podman healthcheck
// run` runs the same check by hand.
async function healthStatus(name) {
  const deadline = Date.now() + 60000;
  let status = '';
  while (Date.now() < deadline) {
    if (engine === 'podman') spawnSync(engine, ['healthcheck', 'run', name], { env, timeout: 30000 });
    status = run(engine, ['inspect', '--format', '{{.State.Health.Status}}', name]).trim();
    if (status === 'healthy') break;
    await sleep(500);
  }
  return status;
}

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
  compose(...upHerd);
  await waitHealthy();
});

const teardowns = [];  // the relay test's project too, should that test be cut short
after(() => {
  spawnSync(composeCmd, [...composePre, '-p', project, '-f', join(repo, 'docker-compose.yml'), 'down', '-v'], { env, cwd: repo, timeout: 120000 });
  // podman-compose 1.0.3 leaves the project's network behind.
  if (engine === 'podman') spawnSync(engine, ['network', 'rm', '-f', `${project}_default`], { env, timeout: 60000 });
  for (const teardown of teardowns) teardown();
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
  // A token was given: none is made, and the logs never hold the one given.
  assert.doesNotMatch(logs(), /#token=[0-9a-f]{64}/, 'a token was made although one was given');
  assert.ok(!logs().includes(env.HERD_COMMAND_TOKEN), 'the given token is in the logs');
});

test('the log names the host\'s port, and the token\'s file is readable from the host as it says', () => {
  const text = logs();
  // compose sets HERD_PUBLIC_URL from HERD_PORT: the URLs printed are the ones opened on the host.
  assert.ok(text.includes(`http://127.0.0.1:${port}/#token=<HERD_COMMAND_TOKEN>`), text);
  assert.ok(text.includes(`WebSocket at ws://127.0.0.1:${port}/ws`), text);
  if (port !== 8080) assert.ok(!text.includes('127.0.0.1:8080/#token'), text);
  const file = text.match(/docker compose exec herd cat (\S+)`/);
  assert.ok(file, text);
  // What that command prints on the host (here through the engine's own exec): the token.
  assert.equal(JSON.parse(run(engine, ['exec', container(), 'cat', file[1]])).token, env.HERD_COMMAND_TOKEN);
});

test('the container runs as a non-root user and its health check reports healthy', async () => {
  const name = container();
  assert.notEqual(run(engine, ['exec', name, 'id', '-u']).trim(), '0');
  assert.equal(inspect('{{.Config.User}}'), 'herd');
  assert.equal(await healthStatus(name), 'healthy');
});

test('compose down (volume kept) then up: the world resumes from the checkpoint', async () => {
  compose('down');
  compose(...upHerd);
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

// ---- the relay profile ----------------------------------------------------------------------------

// Distinct free ports.
async function freePorts(n) {
  const ports = new Set();
  while (ports.size < n) ports.add(await freePort());
  return [...ports];
}

// Polls http://127.0.0.1:PORT/healthz (each request bounded) until `accept(status, body)`; returns
// the body. Fails after `seconds` with the last answer and what `explain()` adds.
async function healthz(p, accept, { seconds = 60, what = 'healthy', explain = () => '' } = {}) {
  const deadline = Date.now() + seconds * 1000;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const r = await fetch(`http://127.0.0.1:${p}/healthz`, { signal: AbortSignal.timeout(2000) });
      const text = await r.text();
      last = `${r.status} ${text.trim()}`;
      const body = JSON.parse(text);
      if (accept(r.status, body)) return body;
    } catch (e) {
      last = String(e.cause?.code || e.message);
    }
    await sleep(250);
  }
  throw new Error(`port ${p}: /healthz was not ${what} within ${seconds} s (last: ${last})\n${explain()}`);
}

const isSnapshot = (m) => m.type === 'snapshot';
const ids = (snapshot) => snapshot.agents.map((a) => a.id);

// Waits (bounded) until every viewer, from its index in `from` on, has received JSON snapshots of
// at least `want` ticks in common; returns [{tick, texts}], one text per viewer.
async function commonSnapshots(viewers, from, { want = 5, seconds = 20 } = {}) {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const byTick = viewers.map((v, i) => new Map(v.messages.slice(from[i]).filter((m) => m.json && isSnapshot(m.json))
      .map((m) => [m.json.tick, m.text])));
    const common = [...byTick[0].keys()].filter((tick) => byTick.every((m) => m.has(tick)));
    if (common.length >= want) return common.map((tick) => ({ tick, texts: byTick.map((m) => m.get(tick)) }));
    const closed = viewers.find((v) => v.closed);
    if (closed || Date.now() > deadline) {
      throw new Error(`${common.length} ticks in common, not ${want}, within ${seconds} s (${closed ? `${closed.url}: ${closed.closed}; ` : ''}` +
        `ticks seen: ${byTick.map((m) => `${m.size} from ${Math.min(...m.keys())} to ${Math.max(...m.keys())}`).join('; ')})`);
    }
    await sleep(100);
  }
}

// The same snapshot texts everywhere: byte for byte, so the same tick, serial and agents.
function assertSame(common, names) {
  for (const { tick, texts } of common) {
    const agents = JSON.parse(texts[0]).agents;
    assert.ok(agents.length > 0, `tick ${tick}: agents`);
    for (let i = 1; i < texts.length; ++i) {
      assert.deepEqual(JSON.parse(texts[i]).agents, agents, `tick ${tick}: ${names[i]}'s agents are ${names[0]}'s`);
      assert.equal(texts[i], texts[0], `tick ${tick}: ${names[i]}'s snapshot is ${names[0]}'s text`);
    }
  }
}

test('the relay profile: two relays serve the server\'s world, carry a commander\'s commands and stay while the server is killed and started again', async () => {
  const relayProject = `herdrelay${process.pid}`;
  const [herdPort, relay1Port, relay2Port] = await freePorts(3);
  const token = 'relay-test-token';
  // HERD_COMMAND_TOKEN is in the environment of compose: the file passes it to herd and to the
  // relays, whose one link upstream commands with it.
  const renv = { ...process.env, HERD_IMAGE: image, HERD_PORT: String(herdPort), HERD_RELAY1_PORT: String(relay1Port),
    HERD_RELAY2_PORT: String(relay2Port), HERD_SCENARIO: 'default', HERD_CHECKPOINT_INTERVAL: '1', HERD_COMMAND_TOKEN: token };
  const composeArgs = [...composePre, '-p', relayProject, '-f', join(repo, 'docker-compose.yml'), ...(profiles ? ['--profile', 'relay'] : [])];
  const clients = [];
  let tornDown = false;
  const teardown = () => {
    if (tornDown) return;
    tornDown = true;
    for (const c of clients) c.close();
    spawnSync(composeCmd, [...composeArgs, 'down', '-v'], { env: renv, cwd: repo, timeout: 120000 });
    // podman-compose 1.0.3 leaves the project's network behind.
    if (engine === 'podman') spawnSync(engine, ['network', 'rm', '-f', `${relayProject}_default`], { env: renv, timeout: 60000 });
  };
  teardowns.push(teardown);

  const named = (service) => {
    const names = run(engine, ['ps', '-a', '--filter', `label=com.docker.compose.project=${relayProject}`,
      '--filter', `label=com.docker.compose.service=${service}`, '--format', '{{.Names}}']).split('\n').filter(Boolean);
    assert.equal(names.length, 1, `one ${service} container in project ${relayProject}: ${names}`);
    return names[0];
  };
  const logsOf = (service) => {
    const r = spawnSync(engine, ['logs', named(service)], { encoding: 'utf8', env: renv, timeout: 30000 });
    return `--- ${service}:\n${(r.stdout + r.stderr).split('\n').slice(-30).join('\n')}`;
  };
  // Why relays may not reach herd: their logs, and whether the project's network resolves names.
  const explain = () => {
    let dns = '';
    if (engine === 'podman') {
      const r = spawnSync(engine, ['network', 'inspect', '--format', '{{.DNSEnabled}}', `${relayProject}_default`], { encoding: 'utf8', timeout: 30000 });
      if (r.stdout.trim() === 'false') {
        dns = 'podman made the project\'s network without DNS, so the relays cannot resolve "herd": podman\'s CNI ' +
          'networks need the dnsname plugin (Debian: golang-github-containernetworking-plugin-dnsname), netavark ones aardvark-dns\n';
      }
    }
    return dns + ['herd', 'relay1', 'relay2'].map(logsOf).join('\n');
  };

  try {
    run(composeCmd, [...composeArgs, 'up', '-d'], { env: renv, timeout: 180000 });
    const [herd, relay1, relay2] = ['herd', 'relay1', 'relay2'].map(named);
    await healthz(herdPort, (status) => status === 200, { explain });
    for (const p of [relay1Port, relay2Port]) {
      const body = await healthz(p, (status, b) => status === 200 && b.upstream === 'connected', { what: 'connected upstream', explain });
      assert.equal(body.status, 'ok');
    }
    // The relays hold the server's token: their one link upstream carries their commanders'
    // commands with it, and they ask their own commanders for it.
    const envOf = (name) => JSON.parse(run(engine, ['inspect', '--format', '{{json .Config.Env}}', name]));
    assert.ok(envOf(herd).includes(`HERD_COMMAND_TOKEN=${token}`), 'herd has the token');
    for (const name of [relay1, relay2]) {
      const relayEnv = envOf(name);
      assert.ok(relayEnv.includes('HERD_RELAY=ws://herd:8080/ws'), `${name}: ${relayEnv}`);
      assert.ok(relayEnv.includes(`HERD_COMMAND_TOKEN=${token}`), `${name} has the server's token: ${relayEnv}`);
      assert.equal(await healthStatus(name), 'healthy', `${name}'s image health check`);
    }
    const page = await fetch(`http://127.0.0.1:${relay1Port}/`, { signal: AbortSignal.timeout(5000) });
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<canvas/, 'a relay serves the viewer');

    // A session on PORT: hello, then its welcome (or the error that comes before it).
    const session = async (p, hello) => {
      const c = await WsClient.open(`ws://127.0.0.1:${p}/ws`);
      clients.push(c);
      c.send({ type: 'hello', protocol: 1, client: 'container-test', ...hello });
      const welcome = await c.waitFor((m) => m.type === 'welcome', { what: 'a welcome' });
      return { c, welcome: welcome.json };
    };
    const server = await session(herdPort, { role: 'viewer' });
    const viewer1 = await session(relay1Port, { role: 'viewer' });
    const viewer2 = await session(relay2Port, { role: 'viewer' });
    assert.equal(server.welcome.upstream, undefined, 'the server is no relay');
    for (const v of [viewer1, viewer2]) {
      assert.equal(v.welcome.upstream, 'connected');
      assert.equal(v.welcome.role, 'viewer');
      assert.equal(v.welcome.scenario, server.welcome.scenario);
      assert.deepEqual(v.welcome.world, server.welcome.world);
    }
    const names = ['the server', 'relay1', 'relay2'];

    // The three see the same snapshots.
    const before = await commonSnapshots([server.c, viewer1.c, viewer2.c], [0, 0, 0]);
    assertSame(before, names);
    console.log(`# ${before.length} ticks seen alike by the server's viewer and both relays' (${before[0].tick} to ${before.at(-1).tick})`);

    // A commander on relay1, with its own token: its spawn reaches the server, relay2 shows it.
    const commander = await session(relay1Port, { role: 'commander', token });
    assert.equal(commander.welcome.role, 'commander');
    assert.equal(commander.welcome.upstream, 'connected');
    commander.c.send({ type: 'command', seq: 1, cmd: 'spawn', count: 5 });
    const ack = await commander.c.waitFor((m) => m.seq === 1 && (m.type === 'ack' || m.type === 'error'), { what: 'the answer to spawn' });
    assert.equal(ack.json.type, 'ack', ack.text);
    const spawned = ack.json.agents;
    assert.equal(spawned.length, 5, ack.text);
    const hasSpawned = (m) => isSnapshot(m) && spawned.every((id) => ids(m).includes(id));
    await viewer2.c.waitFor(hasSpawned, { what: 'a snapshot with the agents spawned through relay1' });
    await server.c.waitFor(hasSpawned, { what: 'a snapshot with the agents spawned through relay1' });
    // Without the token, a commander's hello through a relay is refused by the relay, as by the server.
    const stranger = await session(relay2Port, { role: 'commander' });
    assert.equal(stranger.welcome.role, 'viewer');
    assert.ok(stranger.c.messages.some((m) => m.json?.type === 'error' && m.json.code === 'unauthorized'), 'unauthorized first');
    stranger.c.send({ type: 'command', seq: 1, cmd: 'spawn', count: 1 });
    const refused = await stranger.c.waitFor((m) => m.seq === 1, { what: 'the answer to spawn' });
    assert.equal(refused.json.code, 'forbidden', refused.text);

    // The server is killed (SIGKILL: no final checkpoint) and started again: the relays keep their
    // viewers, tell them, and come back. First the world runs two seconds of ticks past the spawn,
    // so that a periodic checkpoint (every second of world time) holds the spawned agents.
    const past = ack.json.tick + 2 * server.welcome.tick_rate;
    await server.c.waitFor((m) => isSnapshot(m) && m.tick >= past, { what: `a snapshot of tick ${past}, past a checkpoint` });
    const relays = [viewer1.c, viewer2.c, commander.c];
    const marks = relays.map((c) => c.messages.length);
    const states = { [relay1Port]: new Set(), [relay2Port]: new Set() };
    let polling = true;
    const poller = (async () => {
      while (polling) {
        for (const p of [relay1Port, relay2Port]) {
          try {
            const r = await fetch(`http://127.0.0.1:${p}/healthz`, { signal: AbortSignal.timeout(1000) });
            states[p].add((await r.json()).upstream);
          } catch (e) {
            states[p].add(`unanswered: ${e.cause?.code || e.message}`);
          }
        }
        await sleep(50);
      }
    })();
    const sent = Date.now();
    const restarted = promisify(execFile)(engine, ['kill', herd], { env: renv, timeout: 60000 })
      .then(() => promisify(execFile)(engine, ['start', herd], { env: renv, timeout: 120000 }));
    const back = [];
    try {
      await Promise.all(relays.map(async (c, i) => {
        const lost = await c.waitFor((m) => m.type === 'welcome' && m.upstream === 'reconnecting',
          { from: marks[i], timeout: 30000, what: 'a welcome saying "reconnecting"' });
        const again = await c.waitFor((m) => m.type === 'welcome' && m.upstream === 'connected',
          { from: lost.index, timeout: 60000, what: 'a welcome saying "connected" again' });
        assert.equal(lost.json.session, again.json.session, 'the same session');
        let at = again.index;
        for (let n = 0; n < 3; ++n) at = (await c.waitFor(isSnapshot, { from: at + 1, timeout: 10000, what: 'snapshots after the restart' })).index;
        back[i] = { again: again.index, down: c.messages[again.index].at - c.messages[lost.index].at };
      }));
      await restarted;
    } finally {
      polling = false;
      await poller;
    }
    console.log(`# the relays streamed again ${Date.now() - sent} ms after ${engine} kill was sent; ` +
      `"reconnecting" for ${back.map((b) => b.down).join(', ')} ms (relay1's viewer, relay2's viewer, the commander)`);
    for (const p of [relay1Port, relay2Port]) {
      assert.ok(states[p].has('reconnecting'), `port ${p}: /healthz said "reconnecting" while the server was down: ${[...states[p]]}`);
      assert.ok(states[p].has('connected'), `port ${p}: and "connected": ${[...states[p]]}`);
    }
    for (const c of relays) assert.equal(c.closed, null, `${c.url}: the relay kept the connection open`);
    assert.ok(server.c.closed, 'the server\'s own viewer was cut by the kill');
    assert.match(run(engine, ['logs', herd]), /restored from checkpoint/);

    // The world went on from the checkpoint, with the agents spawned through relay1, and the
    // relays show exactly what the server shows.
    const fresh = await session(herdPort, { role: 'viewer' });
    await viewer2.c.waitFor(hasSpawned, { from: back[1].again, what: 'the spawned agents after the restart' });
    const common = await commonSnapshots([fresh.c, viewer1.c, viewer2.c], [0, back[0].again, back[1].again]);
    assertSame(common, names);

    // The commander's session on relay1 commands again (its own link comes back with backoff:
    // until then a command gets upstream_unavailable).
    const deadline = Date.now() + 30000;
    let answer;
    for (let seq = 2; ; ++seq) {
      commander.c.send({ type: 'command', seq, cmd: 'spawn', count: 1 });
      answer = await commander.c.waitFor((m) => m.seq === seq && (m.type === 'ack' || m.type === 'error'), { what: `the answer to spawn ${seq}` });
      if (answer.json.type === 'ack' || answer.json.code !== 'upstream_unavailable' || Date.now() > deadline) break;
      await sleep(250);
    }
    assert.equal(answer.json.type, 'ack', answer.text);
    const one = answer.json.agents;
    await viewer2.c.waitFor((m) => isSnapshot(m) && ids(m).includes(one[0]), { what: 'the agent spawned after the restart' });
  } finally {
    teardown();
  }
});
