// Every shell block of the README runs as written. Its commands run in order, from the
// repository's root, against a real herd-server started as scripts/run starts it (the build
// tree's herd-server with scripts/run's defaults: a token made at start, every address) on a port
// the OS chooses, and a relay in front of it for the command that names one. Nothing is passed
// that the README does not pass: herd-ctl finds the server through HERD_URL, which the README
// says it reads, and the token through the server's runtime file, as on a user's machine.
//
// A command runs unless SKIPPED names it: a skip is a decision, written down with its reason, and
// a new block runs by default. Each command must exit 0, its output shown when it does not; where
// the README shows what a command prints, it must print that; CHECKS then asks the server that
// the world changed as the command says.
//
// HERD_BUILD_DIR (ctest sets it) is the build tree: the README's `build/` is mapped to it when it
// is another directory.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BUILD = process.env.HERD_BUILD_DIR || path.join(ROOT, 'build');
const CTL = path.join(BUILD, 'herd-ctl');

/** How long the world may take to show what a command did, and a command or a server to start. */
const WORLD_MS = 10_000;
const COMMAND_MS = 60_000;
const START_MS = 20_000;

// ---------------------------------------------------------------------------------------------
// Reading the README.

const SHELL_FENCES = ['sh', 'bash', 'shell', 'console'];

/**
 * The command lines of the shell blocks (```sh, ```bash, ```shell; in ```console, the lines after
 * a `$ ` prompt), each with its line number; a line ending in `\` goes on with the next.
 * @param {string} markdown @returns {{ line: number, text: string }[]}
 */
export function shellLines(markdown) {
  /** @type {{ line: number, text: string }[]} */
  const out = [];
  /** @type {string | null} */
  let fence = null;
  /** @type {{ line: number, text: string } | null} */
  let open = null;
  markdown.split('\n').forEach((raw, i) => {
    if (fence === null) {
      const m = /^```\s*(\S*)/.exec(raw);
      if (m) fence = m[1];
      return;
    }
    if (raw.startsWith('```')) {
      fence = null;
      return;
    }
    if (!SHELL_FENCES.includes(fence)) return;
    let text = raw;
    if (open) {
      open.text += text;
    } else {
      if (fence === 'console') {
        if (!text.startsWith('$ ')) return; // what the command printed
        text = text.slice(2);
      }
      open = { line: i + 1, text };
    }
    if (open.text.endsWith('\\')) {
      open.text = open.text.slice(0, -1);
    } else {
      out.push(open);
      open = null;
    }
  });
  return out;
}

/**
 * A command line split as the shell splits it at `;`, and its comment: quotes and backslashes
 * are kept as written (the shell reads them when each command runs).
 * @param {string} line @returns {{ commands: string[], comment: string }}
 */
export function splitLine(line) {
  const commands = [];
  let current = '';
  /** @type {string | null} */
  let quote = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === '\\' && quote === '"') current += line[i++];
      else if (c === quote) quote = null;
      current += line[i];
      continue;
    }
    if (c === '\\') {
      current += c + (line[++i] ?? '');
    } else if (c === "'" || c === '"') {
      quote = c;
      current += c;
    } else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]))) {
      commands.push(current);
      return { commands: commands.map((s) => s.trim()).filter(Boolean), comment: line.slice(i + 1).trim() };
    } else if (c === ';') {
      commands.push(current);
      current = '';
    } else {
      current += c;
    }
  }
  commands.push(current);
  return { commands: commands.map((s) => s.trim()).filter(Boolean), comment: '' };
}

// ---------------------------------------------------------------------------------------------
// The decisions: what is not run, and why. Short on purpose; each entry must name a command the
// README has (a test below says so), so none outlives its command.

const SKIPPED = [
  {
    command: /^scripts\/run(\s|$)/,
    why: 'installs packages, builds, and serves on port 8080 until stopped: this test starts the ' +
      'server it serves (the build tree\'s herd-server, its defaults) on a free port instead',
  },
  {
    command: /^scripts\/test(\s|$)/,
    why: 'the whole test run (Docker, the sanitizer tree), of which this test is a part',
  },
];

// ---------------------------------------------------------------------------------------------
// The servers, and herd-ctl as the README's commands reach them.

/** The environment without any HERD_ setting or runtime directory of the machine's: the test's own. */
function cleanEnv() {
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('HERD_')) delete env[k];
  return env;
}

let work = '';
/** @type {{ child: import('node:child_process').ChildProcess, port: number, log: string }[]} */
const servers = [];
let serverPort = 0;
let relayPort = 0;
/** @type {NodeJS.ProcessEnv} */
let env = {};

/** Starts the build tree's herd-server with `args`; resolves once it says where it listens. */
async function startServer(name, args, serverEnv) {
  const log = path.join(work, `${name}.log`);
  const fd = openSync(log, 'w');
  const child = spawn(path.join(BUILD, 'herd-server'), args, { cwd: ROOT, env: serverEnv, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  const server = { child, port: 0, log };
  servers.push(server);
  const deadline = Date.now() + START_MS;
  for (;;) {
    const text = readFileSync(log, 'utf8');
    const m = /listening on http:\/\/[^/\s]+:(\d+)\//.exec(text);
    if (m) {
      server.port = Number(m[1]);
      return server;
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      assert.fail(`herd-server ${args.join(' ')} did not say where it listens (exit ${child.exitCode}):\n${text}`);
    }
    await delay(20);
  }
}

before(async () => {
  assert.ok(existsSync(CTL), `${CTL}: build herd first (ctest sets HERD_BUILD_DIR)`);
  work = mkdtempSync(path.join(tmpdir(), 'herd-readme-'));
  // The runtime directory the README names ($XDG_RUNTIME_DIR/herd), a fresh one of the test's.
  const serverEnv = { ...cleanEnv(), XDG_RUNTIME_DIR: path.join(work, 'runtime') };
  // As scripts/run starts it (`exec "$HERD_BUILD/herd-server" "$@"`), with `--port 0`.
  serverPort = (await startServer('server', ['--port', '0'], serverEnv)).port;
  relayPort = (await startServer('relay', ['--relay', `ws://localhost:${serverPort}/ws`, '--port', '0'], serverEnv)).port;
  env = { ...serverEnv, HERD_URL: `ws://localhost:${serverPort}/ws` };
});

after(async () => {
  for (const { child } of servers) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(killer);
  }
  if (work) rmSync(work, { recursive: true, force: true });
});

// The README's addresses, as this test serves them: the server's port 8080 (HERD_URL covers the
// commands that name none) and the compose file's first relay, 8081.
function placed(command) {
  const ports = { 8080: serverPort, 8081: relayPort };
  let text = command.replace(/\blocalhost:(\d+)\b/g, (all, port) => {
    assert.ok(ports[port], `${command}: no server of this test's is at ${all}`);
    return `localhost:${ports[port]}`;
  });
  const build = path.join(ROOT, 'build');
  if (!existsSync(build) || realpathSync(build) !== realpathSync(BUILD)) {
    text = text.replace(/(^|[\s;|&<>(])build\//g, `$1'${BUILD.replace(/'/g, "'\\''")}'/`);
  }
  return text;
}

/** What a run printed, for an assertion's message. */
function shown(command, ran, r) {
  return `$ ${command}${ran !== command ? `\n(run as: ${ran})` : ''}\nexit ${r.status}${r.signal ? ` (${r.signal})` : ''}` +
    `\n--- stdout ---\n${r.stdout}\n--- stderr ---\n${r.stderr}`;
}

/** A README command as a user's shell runs it, from the repository's root. */
function runCommand(command) {
  const ran = placed(command);
  const r = spawnSync('bash', ['-c', ran], { cwd: ROOT, env, encoding: 'utf8', timeout: COMMAND_MS, maxBuffer: 64 << 20 });
  return { ...r, shown: shown(command, ran, r) };
}

/** herd-ctl --json ARGS' last line, parsed: how the test reads the world. */
function ctlJson(args) {
  const r = spawnSync(CTL, ['--json', ...args], { env, encoding: 'utf8', timeout: WORLD_MS });
  const command = `${CTL} --json ${args.join(' ')}`;
  assert.equal(r.status, 0, shown(command, command, r));
  return JSON.parse(r.stdout.trim().split('\n').at(-1));
}
const snapshot = () => ctlJson(['watch', '--count', '1', '--role', 'viewer']);
/**
 * The first of the next 20 snapshots (a second at the default rate) that carries the sources and
 * exits, else the last: they travel only in the snapshot after a change (a spawn, a removal), so
 * one snapshot a read, at reads paced like the spawns, can miss every one that has them.
 */
function sourcesSnapshot() {
  const args = ['--json', 'watch', '--count', '20', '--role', 'viewer'];
  const r = spawnSync(CTL, args, { env, encoding: 'utf8', timeout: WORLD_MS });
  const command = `${CTL} ${args.join(' ')}`;
  assert.equal(r.status, 0, shown(command, command, r));
  const snaps = r.stdout.trim().split('\n').map((l) => JSON.parse(l)).filter((m) => m.type === 'snapshot');
  return snaps.find((s) => s.sources) ?? snaps.at(-1);
}
const welcome = () => ctlJson(['info']);

/** Reads the world until `holds` says it shows `what` (at most WORLD_MS); the reading. */
async function until(what, read, holds) {
  const deadline = Date.now() + WORLD_MS;
  let last;
  for (;;) {
    last = read();
    if (holds(last)) return last;
    if (Date.now() > deadline) assert.fail(`the world did not show ${what} within ${WORLD_MS} ms; last read:\n${JSON.stringify(last).slice(0, 3000)}`);
    await delay(50); // paces the reads: each is a connection, and the server limits their rate
  }
}

/** The ids of "ok at tick 42: agents 49-68,70" (herd-ctl's answer to a spawn). */
function answeredIds(output) {
  const m = /^ok at tick \d+: agents ([\d,-]+)$/m.exec(output);
  assert.ok(m, `no "ok at tick T: agents ..." in:\n${output}`);
  return m[1].split(',').flatMap((part) => {
    const [a, b = a] = part.split('-').map(Number);
    return Array.from({ length: b - a + 1 }, (_, k) => a + k);
  });
}

const agentsOf = (s, ids) => ids.every((id) => s.agents.some((/** @type {any} */ a) => a.id === id));

// ---------------------------------------------------------------------------------------------
// What the world shows after a command, asked of the server. Matched against the command as the
// README writes it; each entry must match a README command (tested below). `state` carries what
// one check learns to a later one (the tick a pause stopped at).

/** @type {{ command: RegExp, shows: string, check: (m: RegExpExecArray, out: string, state: any) => Promise<void> | void }[]} */
const CHECKS = [
  {
    command: /^build\/herd-ctl spawn (\d+) --group (\d+)$/,
    shows: 'the new agents in a snapshot, in their group',
    async check(m, out) {
      const ids = answeredIds(out);
      assert.equal(ids.length, Number(m[1]), out);
      await until(`agents ${ids[0]}-${ids.at(-1)} in group ${m[2]}`, snapshot,
        (s) => ids.every((id) => s.agents.some((a) => a.id === id && a.group === Number(m[2]))));
    },
  },
  {
    command: /^build\/herd-ctl target group:(\d+) (\d+) (\d+) --seek$/,
    shows: 'every agent of the group seeking the point',
    async check(m) {
      const [group, x, y] = [1, 2, 3].map((i) => Number(m[i]));
      await until(`group ${group} seeking (${x}, ${y})`, snapshot, (s) => {
        const members = s.agents.filter((a) => a.group === group);
        return members.length > 0 && members.every((a) => a.behaviour === 'seek' && a.tx === x && a.ty === y);
      });
    },
  },
  {
    command: /^build\/herd-ctl target group:(\d+) (\d+) (\d+) --spread point --queue$/,
    shows: 'the point queued after each member\'s current order (its waypoints)',
    async check(m) {
      const [group, x, y] = [1, 2, 3].map((i) => Number(m[i]));
      // Queued behind the seek, or already its current order: a member that had reached the seek's
      // point (a slow build, a member spawned near it) starts the queued order at once.
      await until(`group ${group} with (${x}, ${y}) queued`, snapshot, (s) => {
        const members = s.agents.filter((a) => a.group === group);
        const queued = (a) => a.waypoints?.at(-2) === x && a.waypoints?.at(-1) === y;
        const begun = (a) => a.tx === x && a.ty === y;
        return members.length > 0 && members.every((a) => queued(a) || begun(a)) && members.some(queued);
      });
    },
  },
  {
    command: /^build\/herd-ctl attack-move group:(\d+) (\d+) (\d+)$/,
    shows: 'every member attack-moving',
    async check(m) {
      const group = Number(m[1]);
      await until(`group ${group} attack-moving`, snapshot, (s) => {
        const members = s.agents.filter((a) => a.group === group);
        return members.length > 0 && members.every((a) => a.behaviour === 'attack_move');
      });
    },
  },
  {
    command: /^build\/herd-ctl patrol group:(\d+) (\d+),(\d+) (\d+),(\d+)$/,
    shows: 'every member patrolling, the rest of its lap as waypoints',
    async check(m) {
      const group = Number(m[1]);
      await until(`group ${group} patrolling`, snapshot, (s) => {
        const members = s.agents.filter((a) => a.group === group);
        return members.length > 0 && members.every((a) => a.behaviour === 'patrol' && (a.waypoints?.length ?? 0) >= 4);
      });
    },
  },
  {
    command: /^build\/herd-ctl stop group:(\d+)$/,
    shows: 'every member idle, nothing queued',
    async check(m) {
      const group = Number(m[1]);
      await until(`group ${group} stopped`, snapshot, (s) => {
        const members = s.agents.filter((a) => a.group === group);
        return members.length > 0 && members.every((a) => a.behaviour === 'idle' && !a.waypoints);
      });
    },
  },
  {
    command: /^build\/herd-ctl formation block all /,
    shows: 'a formation with members',
    async check() {
      await until('a formation with members', snapshot, (s) => (s.formations ?? []).some((f) => f.agents > 0));
    },
  },
  {
    command: /^build\/herd-ctl obstacle add (\d+) (\d+) (\d+)$/,
    shows: 'the obstacle in the welcome',
    async check(m) {
      const [x, y, r] = [1, 2, 3].map((i) => Number(m[i]));
      await until(`an obstacle at (${x}, ${y}) of radius ${r}`, welcome,
        (w) => w.obstacles.some((o) => o.x === x && o.y === y && o.r === r));
    },
  },
  {
    command: /^build\/herd-ctl source add (\d+) (\d+) (\d+) (\d+) ([\d.]+) (\d+) --target (\d+),(\d+)$/,
    shows: 'the source in a snapshot, its agents made',
    async check(m) {
      const [x, y, width, height] = [1, 2, 3, 4].map((i) => Number(m[i]));
      await until(`a source at (${x}, ${y}) of ${width} x ${height} that has spawned`, sourcesSnapshot,
        (s) => (s.sources ?? []).some((src) => src.area.x === x && src.area.y === y && src.area.width === width &&
          src.area.height === height && src.total === Number(m[6]) && src.spawned > 0));
    },
  },
  {
    command: /^build\/herd-ctl exit add (\d+) (\d+) (\d+) (\d+)$/,
    shows: 'the exit in a snapshot',
    async check(m) {
      const [x, y, width, height] = [1, 2, 3, 4].map((i) => Number(m[i]));
      await until(`an exit at (${x}, ${y}) of ${width} x ${height}`, sourcesSnapshot,
        (s) => (s.exits ?? []).some((e) => e.area.x === x && e.area.y === y && e.area.width === width && e.area.height === height));
    },
  },
  {
    command: /^build\/herd-ctl wall add (.+?)( --closed)?$/,
    shows: 'the wall in the welcome, through those points',
    async check(m) {
      const points = m[1].replace(/'/g, '').split(/[\s;]+/).map((p) => {
        const [x, y] = p.split(',').map(Number);
        return { x, y };
      });
      const closed = Boolean(m[2]);
      await until(`a wall through ${m[1]}${closed ? ', closed' : ''}`, welcome,
        (w) => (w.walls ?? []).some((wall) => wall.closed === closed && JSON.stringify(wall.points) === JSON.stringify(points)));
    },
  },
  {
    command: /^build\/herd-ctl map load (\S+) --tile-size (\d+)$/,
    shows: 'the file\'s map, its tiles of that size',
    async check(m) {
      const rows = readFileSync(path.join(ROOT, m[1]), 'utf8').split('\n').filter((l) => l && !l.startsWith(';'));
      await until(`a ${rows[0].length} x ${rows.length} map of ${m[2]}-unit tiles`, welcome,
        (w) => w.map?.width === rows[0].length && w.map?.height === rows.length && w.map?.tile_size === Number(m[2]));
    },
  },
  {
    command: /^build\/herd-ctl pathing all (\w+)$/,
    shows: 'every agent pathing so',
    async check(m) {
      // Every agent there when it was sent: a source (an earlier line's) may go on making agents,
      // with its own pathing and newer ids than any of them.
      await until(`every agent pathing ${m[1]}`, snapshot, (s) => {
        const so = s.agents.filter((a) => a.pathing === m[1]);
        const newest = Math.max(...so.map((a) => a.id));
        return so.length > 0 && s.agents.every((a) => a.pathing === m[1] || a.id > newest);
      });
    },
  },
  {
    command: /^build\/herd-ctl info$/,
    shows: 'the role commander: herd-ctl found the token in the runtime file',
    check: (m, out) => assert.match(out, /, role commander\n/),
  },
  {
    command: /^build\/herd-ctl scenarios$/,
    shows: 'the scenarios, the running one marked',
    check(m, out) {
      assert.match(out, /^maze$/m);
      assert.match(out, / \(running\)$/m);
    },
  },
  {
    command: /^build\/herd-ctl scenario (\w+)$/,
    shows: 'the scenario running',
    async check(m) {
      await until(`scenario ${m[1]}`, welcome, (w) => w.scenario === m[1]);
    },
  },
  {
    command: /^build\/herd-ctl pause$/,
    shows: 'the world paused',
    async check(m, out, state) {
      state.pausedAt = (await until('the world paused', welcome, (w) => w.paused)).tick;
    },
  },
  {
    command: /^build\/herd-ctl step (\d+)$/,
    shows: 'the paused world that many ticks on',
    async check(m, out, state) {
      const tick = state.pausedAt + Number(m[1]);
      await until(`tick ${tick}, still paused`, welcome, (w) => w.paused && w.tick === tick);
    },
  },
  {
    command: /^build\/herd-ctl resume$/,
    shows: 'the world running',
    async check() {
      await until('the world running', welcome, (w) => !w.paused);
    },
  },
  {
    command: /\| build\/herd-ctl send$/,
    shows: 'an answer per line, and the agents a spawn line made',
    async check(m, out) {
      const ids = answeredIds(out);
      await until(`agents ${ids.join(',')}`, snapshot, (s) => agentsOf(s, ids));
    },
  },
  {
    command: /^build\/herd-ctl watch --count (\d+)$/,
    shows: 'that many snapshots',
    check: (m, out) => assert.equal(out.match(/^\{"type":"snapshot",/gm)?.length, Number(m[1]), out),
  },
  {
    command: /^build\/herd-ctl stats$/,
    shows: 'the server\'s metrics',
    check: (m, out) => assert.match(out, /^herd_tick \d+$/m),
  },
  {
    command: /^build\/herd-ctl load --viewers (\d+) /,
    shows: 'every viewer connected and receiving',
    check(m, out) {
      assert.match(out, new RegExp(`^viewers ${m[1]} connected ${m[1]} refused 0 failures 0 `, 'm'));
      assert.doesNotMatch(out, /^snapshots 0 /m);
    },
  },
  {
    command: /^build\/herd-ctl sessions$/,
    shows: 'a table of the sessions, herd-ctl\'s own row a commander and marked',
    check(m, out) {
      assert.match(out, /^id +role +client +address +format +connected +sent +snapshots +dropped +rtt$/m);
      assert.match(out, /^\d+ +commander +herd-ctl +\S+ +json .*\(you\)$/m);
      assert.match(out, /^\d+ sessions?(, \d+ more not listed)?$/m);
    },
  },
  {
    command: /^build\/herd-ctl hops --relay (\S+)$/,
    shows: 'a row for the relay: connected upstream, snapshots seen at both ends',
    check(m, out) {
      const url = placed(m[1]).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      assert.match(out, new RegExp(`^${url} +relay +connected +[1-9]\\d* +[1-9]\\d* +[\\d.]+ ms `, 'm'));
    },
  },
];

// ---------------------------------------------------------------------------------------------
// The README, line by line.

const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const LINES = shellLines(README).map((l) => ({ ...l, ...splitLine(l.text) })).filter((l) => l.commands.length > 0);
const COMMANDS = LINES.flatMap((l) => l.commands);

/** The README's example output ("# ok at tick 42: agents 49-68") as a pattern: any numbers. */
function exampleOutput(comment) {
  if (!/^ok at tick \d+: /.test(comment)) return null;
  const escaped = comment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\d+/g, '\\d+');
  return new RegExp(`^${escaped}$`, 'm');
}

const state = {};
for (const { line, commands, comment } of LINES) {
  test(`README.md:${line}: ${commands.join('; ')}`, async (t) => {
    const run = commands.filter((c) => !SKIPPED.some((s) => s.command.test(c)));
    for (const c of commands) {
      const skip = SKIPPED.find((s) => s.command.test(c));
      if (skip) t.diagnostic(`not run: ${c}: ${skip.why}`);
    }
    if (run.length === 0) {
      t.skip(SKIPPED.find((s) => s.command.test(commands[0]))?.why);
      return;
    }
    for (const command of run) {
      const r = runCommand(command);
      assert.equal(r.status, 0, r.shown);
      const example = command === commands.at(-1) ? exampleOutput(comment) : null;
      if (example) assert.match(r.stdout, example, `the README shows what it prints:\n${r.shown}`);
      for (const c of CHECKS) {
        const m = c.command.exec(command);
        if (m) await c.check(m, r.stdout, state);
      }
    }
  });
}

test('the server prints the URL that commands and leaves its token where the README says', () => {
  assert.match(README, /the URL to open: http:\/\/127\.0\.0\.1:8080\/#token=\.\.\./);
  const printed = new RegExp(`http://127\\.0\\.0\\.1:${serverPort}/#token=(\\S+)`).exec(readFileSync(servers[0].log, 'utf8'));
  assert.ok(printed, readFileSync(servers[0].log, 'utf8'));
  assert.match(README, /`\$XDG_RUNTIME_DIR\/herd\/server-8080\.json`/);
  const file = path.join(env.XDG_RUNTIME_DIR ?? '', 'herd', `server-${serverPort}.json`);
  assert.ok(existsSync(file), file);
  assert.equal(statSync(file).mode & 0o777, 0o600, 'readable by its user alone');
  assert.equal(JSON.parse(readFileSync(file, 'utf8')).token, printed[1]);
});

test('the README has herd-ctl commands, and every skip and check names one of its commands', () => {
  assert.ok(COMMANDS.filter((c) => c.startsWith('build/herd-ctl ')).length >= 10, COMMANDS.join('\n'));
  for (const s of [...SKIPPED, ...CHECKS]) {
    assert.ok(COMMANDS.some((c) => s.command.test(c)), `${s.command} matches no README command: update or remove it`);
  }
});

test('shell lines: fences, prompts, continued lines; commands split at ; and comments', () => {
  const md = '```sh\na; b  # c; d\n```\n```json\n{"x": 1}\n```\n```console\n$ e \\\n  f\nprinted\n```\n';
  assert.deepEqual(shellLines(md), [{ line: 2, text: 'a; b  # c; d' }, { line: 8, text: 'e   f' }]);
  assert.deepEqual(splitLine('a; b  # c; d'), { commands: ['a', 'b'], comment: 'c; d' });
  assert.deepEqual(splitLine(`echo '{"a":"#;"}' | x; y "q;#"`), { commands: [`echo '{"a":"#;"}' | x`, 'y "q;#"'], comment: '' });
  assert.deepEqual(splitLine('a\\;b x#y'), { commands: ['a\\;b x#y'], comment: '' });
});
