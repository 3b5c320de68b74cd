// User-facing text names no seed document. The documents herd was built from are not in the
// repository, so "seed 003" or "seeds/..." tells a user nothing: user-facing text says the idea
// itself, and docs/simulation.md's table "Where each idea comes from" names where it came from.
//
// Scanned: README.md, protocol/PROTOCOL.md, docs/*.md and the clients' READMEs whole; the
// scenarios' names and descriptions and the maps' comment lines (installed with the server); and
// the string literals, not the comments, of the web viewer (and its page's text), herd-ctl,
// herd-view and herd-server's --help. Comments are not scanned here; they too name the idea (or
// the table's row), not a document.
//
// "seed" is also the world's random seed (`--seed 7`, `"seed": 7`, "with seed 42"): a number
// written as the documents are named (with a leading zero: 000 to 004), a numbered seed's part or
// possessive ("seed 3 part 2", "seed 3's"), a path into the seeds and "seed document" are
// references; any other number after "seed" is a seed.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const REFERENCES = [
  /(?<![-\w])seeds?\s+0\d*\b/i, // seed 003, seeds 000, 001 and 004
  /(?<![-\w])seeds?\s+\d+(?:'s\b|\s+parts?\s+\d)/i, // seed 3's demo, seed 3 part 4
  /\bseeds\/|shared\/seeds\b/i, // ../shared/seeds/, seeds/002_....txt
  /\bseed\s+doc(?:ument)?s?\b/i, // the seed documents
];

/** @param {string} text @returns {string | undefined} the first reference in it */
export function seedReference(text) {
  for (const re of REFERENCES) {
    const m = re.exec(text);
    if (m) return m[0];
  }
  return undefined;
}

const IDENT = /[\w$]/;
const REGEX_AFTER = new Set('(,=:[!&|?{};+-*%<>~^'.split(''));
const REGEX_KEYWORDS = new Set(['return', 'typeof', 'case', 'in', 'of', 'new', 'delete', 'void', 'throw', 'else', 'do', 'yield', 'await']);

/**
 * The string literals of a JavaScript or C++ source, comments skipped: each with its line.
 * JavaScript: quotes, template literals (their text; `${...}` scanned as code) and regular
 * expression literals (skipped). C++: quotes, raw strings and digit separators (1'000).
 * @param {string} src @param {'js' | 'cpp'} lang
 * @returns {{ text: string, line: number }[]}
 */
export function stringLiterals(src, lang) {
  /** @type {{ text: string, line: number }[]} */
  const out = [];
  let i = 0;
  let line = 1;
  /** @type {number[]} brace depth of each open template substitution */
  const templates = [];
  let depth = 0;
  let prev = ''; // the last significant character or word, for regex literals
  const advance = (/** @type {number} */ to) => {
    for (let k = i; k < to && k < src.length; k++) if (src[k] === '\n') line++;
    i = to;
  };
  const quoted = (/** @type {string} */ q) => {
    const start = line;
    let k = i + 1;
    let text = '';
    while (k < src.length && src[k] !== q) {
      if (src[k] === '\\') { text += src.slice(k, k + 2); k += 2; } else { text += src[k++]; }
    }
    out.push({ text, line: start });
    advance(k + 1);
  };
  const template = () => { // from just after ` or }, to the closing ` or into a ${
    const start = line;
    let k = i;
    let text = '';
    while (k < src.length && src[k] !== '`' && !(src[k] === '$' && src[k + 1] === '{')) {
      if (src[k] === '\\') { text += src.slice(k, k + 2); k += 2; } else { text += src[k++]; }
    }
    out.push({ text, line: start });
    if (src[k] === '`') { advance(k + 1); prev = '`'; } else { advance(k + 2); templates.push(depth); depth = 0; prev = '{'; }
  };
  while (i < src.length) {
    const c = src[i];
    const n = src[i + 1];
    if (c === '\n' || c === ' ' || c === '\t' || c === '\r') { advance(i + 1); continue; }
    if (c === '/' && n === '/') { const e = src.indexOf('\n', i); advance(e < 0 ? src.length : e); continue; }
    if (c === '/' && n === '*') { const e = src.indexOf('*/', i + 2); advance(e < 0 ? src.length : e + 2); continue; }
    if (lang === 'cpp' && c === 'R' && n === '"' && !IDENT.test(src[i - 1] ?? '') ) {
      const open = src.indexOf('(', i + 2);
      const delim = src.slice(i + 2, open);
      const close = src.indexOf(`)${delim}"`, open);
      out.push({ text: src.slice(open + 1, close), line });
      advance(close + delim.length + 2);
      prev = '"';
      continue;
    }
    if (c === '"' || (c === "'" && !(lang === 'cpp' && /^\d[\w'.]*$/.test(numberRun(src, i))))) {
      quoted(c);
      prev = c;
      continue;
    }
    if (lang === 'js' && c === '`') { advance(i + 1); template(); continue; }
    if (lang === 'js' && c === '/' && (prev === '' || REGEX_AFTER.has(prev) || REGEX_KEYWORDS.has(prev))) {
      let k = i + 1;
      let cls = false;
      while (k < src.length && (cls || src[k] !== '/') && src[k] !== '\n') {
        if (src[k] === '\\') k++;
        else if (src[k] === '[') cls = true;
        else if (src[k] === ']') cls = false;
        k++;
      }
      advance(k + 1);
      prev = 'regex';
      continue;
    }
    if (lang === 'js' && c === '{') depth++;
    if (lang === 'js' && c === '}') {
      if (depth === 0 && templates.length) { depth = /** @type {number} */ (templates.pop()); advance(i + 1); template(); continue; }
      depth--;
    }
    if (IDENT.test(c)) {
      let k = i;
      while (k < src.length && IDENT.test(src[k])) k++;
      prev = src.slice(i, k);
      advance(k);
      continue;
    }
    prev = c;
    advance(i + 1);
  }
  return out;
}

/** The run of identifier characters and digit separators just before index i. */
function numberRun(/** @type {string} */ src, /** @type {number} */ i) {
  let k = i;
  while (k > 0 && /[\w'.]/.test(src[k - 1])) k--;
  return src.slice(k, i);
}

const read = (/** @type {string} */ rel) => readFileSync(path.join(ROOT, rel), 'utf8');
const list = (/** @type {string} */ dir, /** @type {RegExp} */ re) =>
  readdirSync(path.join(ROOT, dir)).filter((f) => re.test(f)).sort().map((f) => `${dir}/${f}`);

/** Every piece of user-facing text: where it is, and the text. */
function userText() {
  /** @type {{ where: string, text: string }[]} */
  const out = [];
  const whole = ['README.md', 'protocol/PROTOCOL.md', ...list('docs', /\.md$/), 'clients/native/README.md'];
  for (const f of whole) read(f).split('\n').forEach((text, k) => out.push({ where: `${f}:${k + 1}`, text }));
  for (const f of list('server/scenarios', /\.json$/)) {
    const s = JSON.parse(read(f));
    out.push({ where: `${f}: name`, text: String(s.name ?? '') }, { where: `${f}: description`, text: String(s.description ?? '') });
  }
  for (const f of list('server/scenarios/maps', /\.txt$/)) {
    read(f).split('\n').forEach((text, k) => { if (text.startsWith(';')) out.push({ where: `${f}:${k + 1}`, text }); });
  }
  for (const f of list('clients/web', /\.html$/)) {
    const page = read(f).replace(/<!--[\s\S]*?-->/g, (c) => c.replace(/[^\n]/g, ''));
    page.split('\n').forEach((text, k) => out.push({ where: `${f}:${k + 1}`, text }));
  }
  const sources = [
    ...list('clients/web', /\.js$/).map((f) => /** @type {const} */ ([f, 'js'])),
    ...['clients/cli', 'clients/native', 'server/app'].flatMap((d) => list(d, /\.(cpp|hpp)$/).map((f) => /** @type {const} */ ([f, 'cpp']))),
  ];
  for (const [f, lang] of sources) {
    for (const s of stringLiterals(read(f), lang)) out.push({ where: `${f}:${s.line} (a string)`, text: s.text });
  }
  return out;
}

describe('user-facing text', () => {
  it('names no seed document ("seed 003", "seeds/..."): it says the idea, and docs/simulation.md the origin', () => {
    const found = userText().flatMap(({ where, text }) => {
      const ref = seedReference(text);
      return ref === undefined ? [] : [`${where}: "${ref}" in ${JSON.stringify(text.trim().slice(0, 160))}`];
    });
    assert.deepEqual(found, []);
  });

  it('covers every kind of file it says it scans', () => {
    const where = userText().map((t) => t.where);
    for (const f of ['README.md:', 'protocol/PROTOCOL.md:', 'docs/simulation.md:', 'server/scenarios/maze.json: description',
      'server/scenarios/maps/seed_maze.txt:', 'clients/web/index.html:', 'clients/web/keys.js:', 'clients/cli/ctl.cpp:',
      'clients/native/options.cpp:', 'server/app/config.cpp:']) {
      assert.ok(where.some((w) => w.startsWith(f)), `nothing scanned from ${f}`);
    }
  });
});

describe('the seed-reference check', () => {
  it('finds a document reference', () => {
    for (const text of ["Seed 003 part 4: two agents", "seed 002's walker", 'seeds 000, 001 and 004', 'seed 3 part 2',
      "the seed 4's intercept", '../shared/seeds/', 'seeds/002_393f33d1306c3e41.txt', 'the seed documents', 'SEED 001']) {
      assert.notEqual(seedReference(text), undefined, text);
    }
  });

  it("passes the world's random seed and other seeds", () => {
    for (const text of ['--seed 7', '"seed": 0', 'reset with seed 42', 'a seeded random permutation', 'seed_maze.txt',
      'the seed corpus', 'seed=0', '`seed` (optional integer)', 'the scenario with its seed']) {
      assert.equal(seedReference(text), undefined, text);
    }
  });

  it('reads strings, not comments', () => {
    const js = [
      '// Seed 003: a comment',
      '/* seed 002 */ const a = "seed 001 in a string";',
      "const r = /seed 004/; const b = x / 2 / y; const t = `t ${a + `seed 000`} seed 003`;",
      "const c = 'it\\'s seed 002';",
    ].join('\n');
    const strings = stringLiterals(js, 'js').map((s) => s.text);
    assert.deepEqual(strings, ['seed 001 in a string', 't ', 'seed 000', ' seed 003', "it\\'s seed 002"]);
    const cpp = [
      '// seed 003 comment',
      'int n = 1\'000\'000; const char* s = "seed 001"; /* "seed 002" */',
      'auto r = R"x(seed 004 ")" raw)x"; char q = \'"\';',
    ].join('\n');
    assert.deepEqual(stringLiterals(cpp, 'cpp').map((s) => [s.text, s.line]),
      [['seed 001', 2], ['seed 004 ")" raw', 3], ['"', 3]]);
  });
});
