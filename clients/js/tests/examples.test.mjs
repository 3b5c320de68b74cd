// The JavaScript shown to users runs as written: every ```js block of the README and of this
// package's README, and examples/crowd.mjs, each in a fresh Node process against a real server
// started as scripts/run starts it (the default scenario, a token made at start, found in the
// server's runtime file). Only the README's port is changed, to the server's.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { startServer } from '../../../tests/e2e/lib/server.mjs';
import { connect } from '../src/node.js';

const run = promisify(execFile);
const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const READMES = [new URL('../../../README.md', import.meta.url), new URL('../README.md', import.meta.url)];
// A block waits for agents to walk across the world: the world runs 4 times faster than real
// time here (set_param keeps the world's dt), and a block gets this long.
const RUN_TIMEOUT_MS = 60_000;

// What each README's example says it prints.
const PRINTS = [/^all 20 arrived at tick \d+$/m, /^unknown_agent agent 999999 does not exist$/m];

/** The ```js blocks of a Markdown file. */
function jsBlocks(url) {
  return [...readFileSync(url, 'utf8').matchAll(/^```js\n(.*?)^```/gms)].map((m) => m[1]);
}

describe('the examples against the real server', () => {
  let server;
  before(async () => {
    server = await fastServer();
  });
  after(() => server?.stop());

  // A server as scripts/run starts one, its world 4 times faster.
  async function fastServer() {
    const s = await startServer({ scenario: 'default', openCommands: false });
    // The token the server made, from the runtime file it left for its user.
    const { token } = JSON.parse(readFileSync(`${s.runtimeDir}/server-${s.port}.json`, 'utf8'));
    const c = await connect(s.wsUrl, { token });
    await c.set_param({ tick_rate: 240 });
    await c.close();
    return s;
  }

  // Runs node with `args` in the package's directory (where 'herd-client' names the package
  // itself), with no HERD_ variable but the runtime directory.
  function node(args, runtimeDir = server.runtimeDir) {
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('HERD_')));
    env.HERD_RUNTIME_DIR = runtimeDir;
    return run(process.execPath, args, { cwd: PACKAGE, env, timeout: RUN_TIMEOUT_MS }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (err) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
    );
  }

  it('the READMEs have one JavaScript example each, for the default address', () => {
    const blocks = READMES.map(jsBlocks);
    assert.deepEqual(blocks.map((b) => b.length), [1, 1]);
    for (const [code] of blocks) assert.match(code, /localhost:8080/);
  });

  READMES.forEach((url, i) => {
    it(`${i === 0 ? 'README.md' : 'clients/js/README.md'}'s example runs`, async () => {
      const [code] = jsBlocks(url);
      const r = await node(['--input-type=module', '--eval', code.replaceAll('localhost:8080', `localhost:${server.port}`)]);
      assert.equal(r.code, 0, `${code}\n--- stdout ---\n${r.stdout}\n--- stderr ---\n${r.stderr}`);
      assert.match(r.stdout, PRINTS[i]);
    });
  });

  it('the crowd example sees its crowd arrive', async () => {
    const args = ['--count', '12', '--group', '4', '--target', '650,500', '--timeout', '40'];
    const r = await node(['examples/crowd.mjs', '--url', server.wsUrl, ...args]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^all 12 arrived at tick \d+ \(/m);
    // With binary snapshots, in a world of its own: a crowd spawned at random places beside the
    // one above may find an agent boxed in among those standing there.
    const other = await fastServer();
    try {
      const binary = await node(['examples/crowd.mjs', '--url', other.wsUrl, ...args, '--format', 'binary'], other.runtimeDir);
      assert.equal(binary.code, 0, binary.stdout + binary.stderr);
      assert.match(binary.stdout, /^all 12 arrived at tick \d+ \(/m);
    } finally {
      await other.stop();
    }
  });

  it('the crowd example says when it cannot command, and what is wrong with its flags', async () => {
    const r = await node(['examples/crowd.mjs', '--url', server.wsUrl], `${server.runtimeDir}/nowhere`);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /unauthorized/);
    const bad = await node(['examples/crowd.mjs', '--target', 'north']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--target is X,Y, not 'north'/);
  });
});
