// docs/viewer.md's list of the viewer's keys is generated from clients/web/keys.js: it is the text
// between the two marker comments below, in the section "Using the browser viewer", and equals
// keysMarkdown(). Run `node tests/web/readme_keys.mjs` after changing the table to write it again;
// readme_keys.test.mjs fails while the two differ.
//
// The rest of that section may name keys too, as <kbd>X</kbd> (X as the help shows it): the test
// holds those to the table, and refuses a key written as **X** or `X` (a key of the table, or a
// lone letter or digit), which it could not tell from other bold or code.

import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { KEY_ROWS, keyLabel, keysMarkdown } from '../../clients/web/keys.js';

export const README = fileURLToPath(new URL('../../docs/viewer.md', import.meta.url));
export const BEGIN =
  '<!-- viewer keys: generated from clients/web/keys.js by `node tests/web/readme_keys.mjs`; edit the table, not this list -->';
export const END = '<!-- end of the viewer keys -->';
export const SECTION = '## Using the browser viewer';

// The section "Using the browser viewer" of the README's text: from its heading to the next one.
/** @param {string} readme @returns {string} */
export function viewerSection(readme) {
  const start = readme.indexOf(`\n${SECTION}\n`);
  if (start < 0) throw new Error(`docs/viewer.md has no "${SECTION}" section`);
  const next = readme.indexOf('\n## ', start + SECTION.length + 1);
  return readme.slice(start + 1, next < 0 ? readme.length : next + 1);
}

// The generated block's place in `text`: {start, end} of the text between the markers (without
// them), each marker present exactly once, BEGIN first.
/** @param {string} text @param {string} [where] what the text is, for the error @returns {{start: number, end: number}} */
export function blockSpan(text, where = 'docs/viewer.md') {
  const count = (/** @type {string} */ s) => text.split(s).length - 1;
  if (count(BEGIN) !== 1 || count(END) !== 1) {
    throw new Error(`the viewer keys' markers must each be in ${where} once:\n${BEGIN}\n${END}`);
  }
  const start = text.indexOf(BEGIN) + BEGIN.length;
  const end = text.indexOf(END);
  if (end < start) throw new Error("the viewer keys' end marker comes before its start");
  return { start, end };
}

// The block as it should read between the markers: blank lines around the table's rendering.
/** @returns {string} */
export function expectedBlock() {
  return `\n\n${keysMarkdown()}\n`;
}

// The README with its block written from the table.
/** @param {string} readme @returns {string} */
export function withKeysBlock(readme) {
  const { start, end } = blockSpan(readme);
  return readme.slice(0, start) + expectedBlock() + readme.slice(end);
}

// Every key of the table as the help and the README show it.
/** @returns {Set<string>} */
export function tableKeyLabels() {
  return new Set(KEY_ROWS.flatMap((r) => r.keys ?? []).map(keyLabel));
}

// What is wrong with the README's viewer keys, one sentence each ([] when nothing): the block is
// not the table's rendering; a <kbd> in the section names no key of the table; a key of the table
// is not in the block; a key outside the block is written as bold or code instead of <kbd> (bold
// or code that is a key of the table, or a lone letter or digit; `#` or **Shift** are not keys).
/** @param {string} readme @returns {string[]} */
export function readmeKeyProblems(readme) {
  const problems = [];
  let section;
  let span;
  try {
    section = viewerSection(readme);
    span = blockSpan(section, `docs/viewer.md's section "${SECTION}"`);
  } catch (e) {
    return [/** @type {Error} */ (e).message];
  }
  const block = section.slice(span.start, span.end);
  if (block !== expectedBlock()) {
    problems.push('the viewer keys in docs/viewer.md are not the table in clients/web/keys.js: run `node tests/web/readme_keys.mjs`');
  }
  const keys = tableKeyLabels();
  const kbds = (/** @type {string} */ text) => [...text.matchAll(/<kbd>(.*?)<\/kbd>/g)].map((m) => m[1].replace(/\\(.)/g, '$1'));
  for (const k of new Set(kbds(section))) {
    if (!keys.has(k)) problems.push(`docs/viewer.md names the key <kbd>${k}</kbd>, which clients/web/keys.js has not`);
  }
  const inBlock = new Set(kbds(block));
  for (const row of KEY_ROWS) {
    const shown = row.join === '…' ? [row.keys?.[0], row.keys?.at(-1)] : (row.keys ?? []);
    for (const k of shown) {
      if (k !== undefined && !inBlock.has(keyLabel(k))) problems.push(`docs/viewer.md's viewer keys do not name ${keyLabel(k)}`);
    }
  }
  const outside = section.slice(0, span.start - BEGIN.length) + section.slice(span.end + END.length);
  for (const m of outside.matchAll(/\*\*([^*\n]+)\*\*|`([^`\n]+)`/g)) {
    const text = m[1] ?? m[2];
    if (keys.has(text) || /^[A-Za-z0-9]$/.test(text)) problems.push(`docs/viewer.md writes the key ${m[0]} outside the list: write <kbd>${text}</kbd>`);
  }
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const readme = readFileSync(README, 'utf8');
  const updated = withKeysBlock(readme);
  if (updated === readme) {
    console.log('docs/viewer.md: the viewer keys are already the table');
  } else {
    writeFileSync(README, updated);
    console.log('docs/viewer.md: the viewer keys written from clients/web/keys.js');
  }
  // What writing cannot mend: keys named outside the list.
  for (const p of readmeKeyProblems(updated)) console.error(p);
}
