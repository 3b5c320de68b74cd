// What can be checked of the Docker set-up without a Docker engine (none runs on the development
// machines): the Dockerfile lints clean, every COPY names something the repository or the native
// build really has, the build stage installs what scripts/lib.sh installs, and every HERD_*
// variable the image or the compose file sets is a setting herd-server knows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { validate, ValidationSeverity } from 'dockerfile-utils';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const build = process.env.HERD_BUILD_DIR || join(repo, 'build');
const server = process.env.HERD_SERVER || join(build, 'herd-server');
const dockerfile = readFileSync(join(repo, 'Dockerfile'), 'utf8');
const compose = readFileSync(join(repo, 'docker-compose.yml'), 'utf8');

// Instructions with continuation lines joined, per stage.
function stages(text) {
  const joined = text.replace(/\\\n/g, ' ');
  const out = [];
  for (const line of joined.split('\n')) {
    const t = line.trim();
    if (!t || t.startsWith('#')) continue;
    const [word, ...rest] = t.split(/\s+/);
    if (word.toUpperCase() === 'FROM') out.push({ from: rest.join(' '), lines: [] });
    else out.at(-1).lines.push({ word: word.toUpperCase(), args: rest });
  }
  return out;
}

test('the Dockerfile lints clean', () => {
  const problems = validate(dockerfile).filter((d) => d.severity <= ValidationSeverity.WARNING);
  assert.deepEqual(problems.map((d) => `${d.range.start.line + 1}: ${d.message}`), []);
});

test('the linter does catch a broken Dockerfile (so a clean result means something)', () => {
  const broken = validate('FROM debian:12\nEXPOSE notaport\nFOOBAR x\n');
  assert.ok(broken.length >= 2);
});

test('every COPY names a file the repository or the native build has', () => {
  const [buildStage, runtime] = stages(dockerfile);
  assert.ok(buildStage && runtime, 'a build stage and a runtime stage');
  for (const stage of [buildStage, runtime]) {
    for (const { word, args } of stage.lines.filter((l) => l.word === 'COPY')) {
      const from = args.find((a) => a.startsWith('--from='));
      const paths = args.filter((a) => !a.startsWith('--'));
      const sources = paths.slice(0, -1);
      for (const src of sources) {
        if (from) {
          // The build stage builds in /src/build as scripts/ build in build/.
          assert.match(src, /^\/src\/build\//, `${word} ${args.join(' ')}`);
          const produced = join(build, src.replace(/^\/src\/build\//, ''));
          assert.ok(existsSync(produced), `the runtime stage copies ${src}, which the native build does not produce (${produced})`);
        } else {
          assert.ok(existsSync(join(repo, src)), `COPY ${src}: no such file in the repository`);
        }
      }
    }
  }
});

test('the build stage installs the packages scripts/lib.sh installs', () => {
  const lib = readFileSync(join(repo, 'scripts', 'lib.sh'), 'utf8');
  const scripted = lib.match(/HERD_BUILD_PACKAGES=\(([^)]*)\)/)[1].trim().split(/\s+/).sort();
  // The words between "--no-install-recommends" and the next "&&" of the build stage's install.
  const run = stages(dockerfile)[0].lines.find((l) => l.word === 'RUN' && l.args.includes('install')).args;
  const start = run.indexOf('--no-install-recommends') + 1;
  const installed = run.slice(start, run.indexOf('&&', start)).sort();
  assert.deepEqual(installed, scripted);
});

test('every HERD_* variable set by the image or compose is a herd-server setting', () => {
  const help = execFileSync(server, ['--help'], { encoding: 'utf8' });
  const named = new Set([...(dockerfile + compose).matchAll(/\b(HERD_[A-Z_]+)\b/g)].map((m) => m[1]));
  assert.ok(named.size >= 4);
  for (const name of named) assert.ok(help.includes(name), `${name} is not in herd-server --help`);
});

test('the runtime image runs as a non-root user with a health check', () => {
  const runtime = stages(dockerfile).at(-1);
  const user = runtime.lines.find((l) => l.word === 'USER');
  assert.ok(user && user.args[0] !== 'root' && user.args[0] !== '0');
  assert.ok(runtime.lines.some((l) => l.word === 'HEALTHCHECK' && l.args.join(' ').includes('/healthz')));
});
