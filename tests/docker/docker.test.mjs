// What can be checked of the Docker set-up from its text (tests/container runs the image for
// real): the Dockerfile lints clean, its stages copy the context and the installed tree whole, the
// build stage installs scripts/'s one package list before the sources, and every HERD_* variable
// the image or the compose file sets is a setting herd-server knows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
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

test('the build stage copies the whole context and the runtime stage only what cmake --install laid out', () => {
  const [buildStage, runtime] = stages(dockerfile);
  assert.ok(buildStage && runtime, 'a build stage and a runtime stage');
  const copies = buildStage.lines.filter((l) => l.word === 'COPY').map((l) => l.args.join(' '));
  assert.ok(copies.includes('. .'), `the build stage copies the context whole: ${copies}`);
  const install = buildStage.lines.find((l) => l.word === 'RUN' && l.args.join(' ').includes('cmake --install'));
  assert.ok(install, 'the build stage runs cmake --install');
  const prefix = install.args.join(' ').match(/DESTDIR=(\S+) cmake --install \S+ --prefix (\S+)/);
  assert.ok(prefix, 'cmake --install with DESTDIR and --prefix');
  for (const { args } of runtime.lines.filter((l) => l.word === 'COPY')) {
    assert.ok(args.includes('--from=build'), `the runtime stage copies from the build stage only: COPY ${args.join(' ')}`);
    assert.equal(args.at(-2), prefix[1] + prefix[2], 'the installed tree, whole');
  }
});

test('.dockerignore keeps build trees, npm packages and git history out of the context', () => {
  const ignored = readFileSync(join(repo, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim());
  for (const p of ['.git', 'build*/', '**/node_modules']) assert.ok(ignored.includes(p), p);
});

test('the build stage installs the one package list scripts/lib.sh installs', () => {
  const lib = readFileSync(join(repo, 'scripts', 'lib.sh'), 'utf8');
  assert.match(lib, /HERD_BUILD_PACKAGES < <\(grep -v '\^#' "\$HERD_ROOT\/scripts\/packages-build.txt"\)/);
  const [buildStage] = stages(dockerfile);
  const copy = buildStage.lines.findIndex((l) => l.word === 'COPY' && l.args[0] === 'scripts/packages-build.txt');
  const install = buildStage.lines.findIndex((l) => l.word === 'RUN' && /packages-build\.txt \| xargs .*apt-get install/.test(l.args.join(' ')));
  const sources = buildStage.lines.findIndex((l) => l.word === 'COPY' && l.args.join(' ') === '. .');
  assert.ok(copy >= 0 && install > copy, 'the list is copied, then installed');
  assert.ok(sources > install, 'the packages come before the sources, so a source change does not reinstall them');
});

test('every HERD_* variable the image or compose sets is a herd-server setting', () => {
  const help = execFileSync(server, ['--help'], { encoding: 'utf8' });
  const env = [...dockerfile.replace(/\\\n/g, ' ').matchAll(/^ENV\s+(.*)$/gm)].flatMap((m) => [...m[1].matchAll(/(HERD_[A-Z_]+)=/g)].map((x) => x[1]));
  const composed = [...compose.matchAll(/^\s+(HERD_[A-Z_]+):/gm)].map((m) => m[1]);
  const named = new Set([...env, ...composed]);
  assert.ok(named.size >= 4, [...named].join(' '));
  for (const name of named) assert.ok(help.includes(name), `${name} is not in herd-server --help`);
});

test('the runtime image runs as a non-root user with a health check', () => {
  const runtime = stages(dockerfile).at(-1);
  const user = runtime.lines.find((l) => l.word === 'USER');
  assert.ok(user && user.args[0] !== 'root' && user.args[0] !== '0');
  const check = runtime.lines.find((l) => l.word === 'HEALTHCHECK');
  assert.ok(check && check.args.join(' ').includes('"herd-server", "--probe"'), 'the server probes itself');
});
