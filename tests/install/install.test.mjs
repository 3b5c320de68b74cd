// `cmake --install` lays out a tree that works wherever it is moved: the installed server finds
// its viewer and scenarios relative to itself, and no installed binary names the source or build
// directory it came from.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const source = process.env.HERD_SOURCE_DIR;
const build = process.env.HERD_BUILD_DIR;
const cmake = process.env.HERD_CMAKE || 'cmake';
assert.ok(source && build, 'HERD_SOURCE_DIR and HERD_BUILD_DIR are set (ctest sets them)');

let dir;
let prefix;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'herd-install-'));
  const first = join(dir, 'first');
  execFileSync(cmake, ['--install', build, '--prefix', first], { stdio: 'pipe' });
  // Moved after installing: nothing may depend on where it was installed.
  prefix = join(dir, 'moved');
  renameSync(first, prefix);
});
after(() => rmSync(dir, { recursive: true, force: true }));

// Whether the file holds `text` as bytes (what `strings | grep` would find).
const holds = (file, text) => readFileSync(file).includes(Buffer.from(text));

test('the GNUInstallDirs layout: bin/ and share/herd/{web,js,scenarios}', () => {
  const bins = readdirSync(join(prefix, 'bin'));
  for (const b of ['herd-server', 'herd-ctl']) assert.ok(bins.includes(b), `bin/${b}`);
  assert.ok(readdirSync(join(prefix, 'share/herd/web')).includes('index.html'));
  // The JavaScript client's modules, which the viewer imports; not its tests or examples.
  assert.deepEqual(readdirSync(join(prefix, 'share/herd/js')).sort(), ['package.json', 'src']);
  assert.deepEqual(readdirSync(join(prefix, 'share/herd/js/src')).sort(), readdirSync(join(source, 'clients/js/src')).sort());
  const scenarios = readdirSync(join(prefix, 'share/herd/scenarios'));
  assert.ok(scenarios.includes('default.json') && scenarios.includes('demo32.json'), scenarios.join(' '));
  assert.ok(!scenarios.some((f) => f.endsWith('.cpp') || f.endsWith('.hpp')), 'no sources among the scenarios');
});

// A sanitizer tree is exempt: UBSan's type descriptors name lambdas by their absolute source path,
// which clang 14 does not remap with -ffile-prefix-map (and those binaries are never shipped).
const sanitized = process.env.HERD_SANITIZE ? 'UBSan type names hold absolute paths in a sanitizer tree' : false;
test('no installed binary names the source or build directory', { skip: sanitized }, () => {
  // The check itself finds such a path where one is compiled in: the tests' own binary has the
  // source directory in it on purpose.
  assert.ok(holds(join(build, 'tests', 'net_tests'), source), 'the scan finds a compiled-in path');
  for (const b of readdirSync(join(prefix, 'bin'))) {
    const file = join(prefix, 'bin', b);
    assert.ok(!holds(file, source), `${b} holds ${source}`);
    assert.ok(!holds(file, build), `${b} holds ${build}`);
  }
});

// Starts the moved server on a free loopback port with no path settings; resolves with the child
// and its port once it says where it listens (bounded).
function start_server(args) {
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('HERD_')) delete env[k];
  const child = spawn(join(prefix, 'bin', 'herd-server'), ['--address', '127.0.0.1', '--port', '0', ...args], { env });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`no listening line in 20 s: ${out}`)); }, 20000);
    const take = (chunk) => {
      out += chunk;
      const m = out.match(/listening on http:\/\/127\.0\.0\.1:(\d+)\//);
      if (m) { clearTimeout(timer); resolve({ child, port: Number(m[1]), out: () => out }); }
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`exited ${code}: ${out}`)); });
  });
}

function stop(child) {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.on('exit', (code, signal) => resolve({ code, signal }));
    child.kill('SIGTERM');
  });
}

test('the moved server serves the viewer and loads a scenario by name from beside itself', async () => {
  const { child, port, out } = await start_server(['--scenario', 'demo32']);
  try {
    assert.match(out(), /scenario 'demo32', 32 agents/);
    const page = await fetch(`http://127.0.0.1:${port}/`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<canvas/);
    const script = await fetch(`http://127.0.0.1:${port}/main.js`);
    assert.equal(script.status, 200);
    // Every module the viewer imports from the JavaScript client package, where its
    // '../js/src/...' leads from the site's root.
    const imported = new Set();
    for (const f of readdirSync(join(prefix, 'share/herd/web')).filter((n) => n.endsWith('.js'))) {
      const text = readFileSync(join(prefix, 'share/herd/web', f), 'utf8');
      for (const m of text.matchAll(/^import .* from '\.\.\/js\/src\/([a-z_]+\.js)';$/gm)) imported.add(m[1]);
    }
    assert.ok(imported.has('connection.js'), [...imported].join(' '));
    for (const m of imported) {
      const res = await fetch(`http://127.0.0.1:${port}/js/src/${m}`);
      assert.equal(res.status, 200, m);
      assert.match(res.headers.get('content-type'), /^text\/javascript/, m);
    }
    // The viewers' palette, which theme.js imports as a JSON module: a browser loads it only when
    // it is served as JSON.
    const palette = await fetch(`http://127.0.0.1:${port}/palette.json`);
    assert.equal(palette.status, 200);
    assert.match(palette.headers.get('content-type'), /^application\/json/);
    assert.ok(Array.isArray((await palette.json()).groups));
    // The probe a container's health check runs, from the moved tree too.
    const probe = execFileSync(join(prefix, 'bin', 'herd-server'), ['--probe', '--address', '127.0.0.1', '--port', String(port)], { encoding: 'utf8' });
    assert.match(probe, /healthy \(HTTP\/1\.1 200/);
  } finally {
    assert.deepEqual(await stop(child), { code: 0, signal: null });
  }
});

test('--probe exits 1 when nothing answers', () => {
  let status = 0;
  try {
    execFileSync(join(prefix, 'bin', 'herd-server'), ['--probe', '--address', '127.0.0.1', '--port', '1'], { stdio: 'pipe' });
  } catch (e) {
    status = e.status;
  }
  assert.equal(status, 1);
});

// Runs a build step; on failure the assertion shows the end of its output (a failed link can
// print megabytes).
function run(file, args) {
  const r = spawnSync(file, args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  assert.equal(r.status, 0, `${file} ${args.join(' ')}:\n${(r.stdout + r.stderr).slice(-4000)}`);
}

// The sim as a library: a separate CMake project finds the moved tree with find_package(herd),
// builds against herd::sim and herd::exec only, and steps a world.
test('find_package(herd) gives a game the sim without the server', () => {
  const consumerBuild = join(dir, 'consumer-build');
  const libs = readdirSync(join(prefix, 'lib'));
  assert.ok(libs.includes('libherd_sim.a'), libs.join(' '));
  // Only the sim's public face is installed (server/sim/include), none of its private headers:
  // no kernel fragment, no grid, no world state.
  const installed = readdirSync(join(prefix, 'include/herd/sim')).sort();
  assert.deepEqual(installed, readdirSync(join(source, 'server/sim/include/herd/sim')).sort());
  assert.ok(installed.includes('world.hpp'));
  for (const h of installed) {
    const text = readFileSync(join(prefix, 'include/herd/sim', h), 'utf8');
    assert.doesNotMatch(text, /__builtin_prefetch|\.inc"|spatial_grid\.hpp|world_impl\.hpp"/, `include/herd/sim/${h}`);
  }
  // The consumer is built the way herd was: same compiler, and in a sanitizer tree the same
  // sanitizers (an instrumented libherd_sim.a needs their runtime at link time).
  const configure = ['-S', join(source, 'tests/install/consumer'), '-B', consumerBuild, `-DCMAKE_PREFIX_PATH=${prefix}`,
    '-DCMAKE_BUILD_TYPE=Release'];
  if (process.env.HERD_CXX) configure.push(`-DCMAKE_CXX_COMPILER=${process.env.HERD_CXX}`);
  if (process.env.HERD_SANITIZE) {
    configure.push(`-DCMAKE_CXX_FLAGS=-fsanitize=${process.env.HERD_SANITIZE}`,
      `-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=${process.env.HERD_SANITIZE}`);
  }
  run(cmake, configure);
  const flags = readFileSync(join(consumerBuild, 'CMakeFiles/consumer.dir/flags.make'), 'utf8');
  assert.match(flags, /-ffp-contract=off/, 'the determinism flags come with herd::sim');
  assert.doesNotMatch(flags, new RegExp(source.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '/server'), 'headers from the installed tree');
  run(cmake, ['--build', consumerBuild]);
  const out = execFileSync(join(consumerBuild, 'consumer'), { encoding: 'utf8' });
  assert.match(out, /tick 300 agents 200/);
  const m = out.match(/one thread ([0-9a-f]{16}), two threads ([0-9a-f]{16})/);
  assert.ok(m, out);
  assert.equal(m[1], m[2]);
});
