// The viewer's key table (clients/web/keys.js) against what reads it: docs/viewer.md's list of the keys
// (readme_keys.mjs says the rule), input.js's handlers and the demo's commands. The help panel
// drawn from it is the browser tests' (tests/e2e/scenes.test.mjs).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import {
  COMMAND_ACTIONS,
  KEY_ROWS,
  KEY_SECTIONS,
  inlineRuns,
  keyAction,
  keyLabel,
  keysMarkdown,
  keysOf,
  labelRuns,
} from '../../clients/web/keys.js';
import { keyHandlers } from '../../clients/web/input.js';
import { DEMO_KEYS, DemoKeys } from '../../clients/web/demo_keys.js';
import { BEGIN, END, README, readmeKeyProblems, tableKeyLabels, withKeysBlock } from './readme_keys.mjs';

const readme = readFileSync(README, 'utf8');

describe("docs/viewer.md's viewer keys", () => {
  it('are the table: the generated list between the markers, and no other key named in the section', () => {
    assert.deepEqual(readmeKeyProblems(readme), []);
    assert.equal(withKeysBlock(readme), readme, 'run `node tests/web/readme_keys.mjs`');
  });

  it('name every key of the table', () => {
    const block = readme.slice(readme.indexOf(BEGIN), readme.indexOf(END));
    for (const row of KEY_ROWS) {
      for (const k of row.join === '…' ? [row.keys?.[0], row.keys?.at(-1)] : (row.keys ?? [])) {
        const kbd = `<kbd>${keyLabel(/** @type {string} */ (k)).replace(/([[\]])/g, '\\$1')}</kbd>`;
        assert.ok(block.includes(kbd), `${kbd} is not in docs/viewer.md's list`);
      }
      if (row.mouse) assert.ok(block.includes(`| ${row.mouse}`), `"${row.mouse}" is not in docs/viewer.md's list`);
    }
  });

  it('fail when the list or the section drifts from the table', () => {
    const cases = {
      'a row lost': readme.replace(/^\| <kbd>F<\/kbd> \|.*\n/m, ''),
      'a row edited by hand': readme.replace('fit the whole world in the view', 'fit the world'),
      'a key the table lacks, in the list': readme.replace('<kbd>O</kbd> |', '<kbd>J</kbd> |'),
      'a key the table lacks, in the prose': readme.replace('<kbd>H</kbd> or <kbd>?</kbd> shows', '<kbd>K</kbd> shows'),
      'a key written in bold': readme.replace('- Motion is interpolated', '- **F** fits the world. Motion is interpolated'),
      'a key written as code': readme.replace('- Motion is interpolated', '- `Space` pauses. Motion is interpolated'),
      'the markers lost': readme.replace(END, ''),
      'the list outside the section': readme.replace(BEGIN, '').replace(END, '') + `\n${BEGIN}\n${END}\n`,
    };
    for (const [what, text] of Object.entries(cases)) {
      assert.notEqual(text, readme, `${what}: the case changed nothing`);
      assert.ok(readmeKeyProblems(text).length > 0, `${what}: not caught`);
    }
  });
});

describe('the key table', () => {
  it('has rows in known sections, every section rows, and keys only under an action', () => {
    const ids = KEY_SECTIONS.map((s) => s.id);
    assert.equal(new Set(ids).size, ids.length);
    for (const row of KEY_ROWS) {
      assert.ok(ids.includes(row.section), `${JSON.stringify(row)}: unknown section`);
      assert.ok(row.mouse || row.keys?.length, `${JSON.stringify(row)}: neither keys nor mouse`);
      assert.equal(Boolean(row.keys?.length), Boolean(row.action), `${JSON.stringify(row)}: keys and an action go together`);
      assert.ok(!/seed \d/i.test(row.does + (row.mouse ?? '')), `${row.does}: say the idea, not the seed's number`);
    }
    for (const s of KEY_SECTIONS) {
      assert.ok(KEY_ROWS.some((r) => r.section === s.id), `${s.id} has no rows`);
      assert.ok(!/seed \d/i.test(s.title + (s.note ?? '')), `${s.title}: say the idea, not the seed's number`);
    }
  });

  it('binds each key once, letters in either case, and not the keys of a chord or a range alone', () => {
    // A chord's keys are bound together (Ctrl + A), apart from the same key pressed alone (A).
    const seen = new Map();
    for (const row of KEY_ROWS) {
      for (const k of row.keys ?? []) {
        const as = `${row.join === '+' ? 'chord' : 'alone'} ${k}`;
        assert.ok(!seen.has(as) || seen.get(as) === row, `${k} is in two rows`);
        seen.set(as, row);
      }
    }
    assert.equal(keyAction('Escape'), 'escape');
    assert.equal(keyAction('f'), 'fit');
    assert.equal(keyAction('F'), 'fit');
    assert.equal(keyAction('?'), 'help');
    assert.equal(keyAction(' '), 'pause');
    assert.equal(keyAction('ArrowUp'), 'pan');
    assert.equal(keyAction('a'), 'attackMove', 'A alone, not Ctrl + A');
    assert.equal(keyAction('Q'), 'patrol');
    assert.equal(keyAction('c'), 'stop');
    assert.equal(keyAction('Control'), null);
    assert.equal(keyAction('1'), null, 'the digits are bound by their place (ev.code)');
    assert.equal(keyAction('k'), null);
  });

  it("names in a row's text only keys of the table", () => {
    const keys = tableKeyLabels();
    for (const row of KEY_ROWS) {
      for (const run of [...inlineRuns(row.does), ...labelRuns(row)]) {
        if (run.kind === 'kbd') assert.ok(keys.has(run.text), `${row.does}: ${run.text} is no key of the table`);
      }
    }
  });

  it('is what input.js handles: an action for every row with keys, and no handler without a row', () => {
    const handlers = keyHandlers(/** @type {any} */ ({}), () => null);
    const actions = new Set(KEY_ROWS.flatMap((r) => (r.action ? [r.action] : [])));
    assert.deepEqual(new Set(Object.keys(handlers)), actions);
  });

  it('marks what commands, which a viewer ignores: the bar, the demo, spawn, remove, obstacles, paint, orders', () => {
    assert.deepEqual(
      [...COMMAND_ACTIONS].sort(),
      ['attackMove', 'demo', 'obstacle', 'paint', 'patrol', 'pause', 'pickScenario', 'remove', 'reset', 'snapshotRate', 'spawn', 'step', 'stop', 'tickRate'],
    );
    for (const row of KEY_ROWS) {
      if (row.section === 'bar' || row.section === 'demo') assert.equal(row.commands, true, `${row.does}: the bar's and the demo's rows command`);
    }
    assert.deepEqual(
      KEY_ROWS.filter((r) => r.commands && !r.action).map((r) => r.mouse),
      [
        'right-click the ground',
        'Shift + right-click the ground',
        'right-click an enemy',
        'right-click another agent',
        'Alt + right-click an agent or an obstacle',
        'drag (painting)',
        'Shift + drag, right drag',
        'tap the ground',
        'long press an obstacle',
        'the attack-move, patrol and stop buttons',
        "the demo's buttons (the operator's)",
      ],
    );
  });

  it("gives the demo's keys, each a command of the demo, and no other key one", () => {
    assert.deepEqual(DEMO_KEYS, keysOf('demo'));
    assert.deepEqual([...DEMO_KEYS].sort(), ['B', 'G', 'P', 'R', 'T']);
    const centre = { x: 0, y: 0 };
    for (const k of DEMO_KEYS) assert.notEqual(new DemoKeys().command(k, 'all', centre), null, k);
    for (const k of KEY_ROWS.flatMap((r) => (r.action !== 'demo' ? (r.keys ?? []) : []))) {
      assert.equal(new DemoKeys().command(k, 'all', centre), null, k);
    }
  });
});

describe('the rendering', () => {
  it('reads the inline markup: `key` and *emphasis*, a lone ` or * as text', () => {
    assert.deepEqual(inlineRuns('after `G`: *step* now'), [
      { text: 'after ', kind: 'text' },
      { text: 'G', kind: 'kbd' },
      { text: ': ', kind: 'text' },
      { text: 'step', kind: 'em' },
      { text: ' now', kind: 'text' },
    ]);
    assert.deepEqual(inlineRuns('a * b ` c'), [{ text: 'a * b ` c', kind: 'text' }]);
  });

  it('labels a row: the mouse, then the keys as alternatives, a set, a chord or a range', () => {
    const label = (/** @type {import('../../clients/web/keys.js').KeyRow} */ row) =>
      labelRuns(row).map((r) => (r.kind === 'kbd' ? `[${r.text}]` : r.text)).join('');
    assert.equal(label({ section: 'view', keys: ['Delete', 'Backspace'], does: '' }), '[Delete] or [Backspace]');
    assert.equal(label({ section: 'view', keys: ['Control', 'A'], join: '+', does: '' }), '[Ctrl] + [A]');
    assert.equal(label({ section: 'view', keys: ['0', '1', '2'], join: '…', does: '' }), '[0] … [2]');
    assert.equal(label({ section: 'view', mouse: 'middle drag', keys: ['ArrowLeft', 'Escape', ' '], join: ' ', does: '' }), 'middle drag, [←] [Esc] [Space]');
    assert.equal(label({ section: 'view', mouse: 'wheel', does: '' }), 'wheel');
  });

  it("writes Markdown that a table cell and GitHub's renderer keep as it is", () => {
    const md = keysMarkdown();
    assert.ok(md.includes('| <kbd>\\[</kbd> <kbd>\\]</kbd> | fewer or more ticks per second |'));
    assert.ok(md.includes('beside *step* |'));
    for (const line of md.split('\n').filter((l) => l.startsWith('|'))) {
      assert.equal(line.replace(/\\\|/g, '').split('|').length, 4, `not two cells: ${line}`);
    }
  });
});
