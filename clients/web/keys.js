// @ts-check
// Every key and mouse action of the viewer, once. input.js binds the keys a row names to the
// row's action, demo_keys.js takes its keys from the demo's rows, the help panel (index.html's
// #help) is drawn from the rows at load (panels.js), and README.md's key list is this table's
// rendering by keysMarkdown(): tests/web/readme_keys.test.mjs fails when they differ, and
// `node tests/web/readme_keys.mjs` writes it again.
//
// A row's text is a small subset of Markdown, shown as such in the README and as elements in the
// help: `X` is the key X (<kbd>), *word* is emphasis (<em>); nothing else is markup.

/** @typedef {'view' | 'bar' | 'demo' | 'touch'} KeySectionId */

/**
 * One block of the help panel and of the README's list.
 * @typedef {object} KeySection
 * @property {KeySectionId} id
 * @property {string} title  a lower-case heading
 * @property {string} [note] a line under the list
 */

/**
 * One action. Keys are KeyboardEvent.key values ('Escape', 'ArrowLeft', ' '; a letter in upper
 * case, bound in either case); `mouse` is the pointer's part, in words. The label shown is the
 * mouse's part, then the keys joined by `join`: 'or' (default) alternatives, ' ' a set (the arrows,
 * a pair of opposites), '+' a chord, '…' a range (its first and last key are shown).
 * @typedef {object} KeyRow
 * @property {KeySectionId} section
 * @property {string} [mouse]
 * @property {string[]} [keys]
 * @property {'or' | ' ' | '+' | '…'} [join]
 * @property {string} [action] input.js's handler for the keys (rows of keys only)
 * @property {string} does     what it does
 * @property {boolean} [commands] it sends a command or a server control: a page the server
 *   welcomed as viewer ignores it (access.js), and its help shows the row dimmed
 * @property {string} [button] its on-screen button's word on touch screens (touch.js): the demo's
 *   moves, and the orders a key arms or gives (attack-move, patrol, stop)
 */

/** @type {readonly KeySection[]} */
export const KEY_SECTIONS = [
  { id: 'view', title: 'keys and mouse' },
  { id: 'bar', title: 'the scenario bar (commanders)' },
  {
    id: 'demo',
    title: 'the formation demo: on the selection, or on everyone',
    note: "the demo's order: R B T G B P B",
  },
  { id: 'touch', title: 'touch screens' },
];

/** @type {readonly KeyRow[]} */
export const KEY_ROWS = [
  { section: 'view', mouse: 'click an agent', does: 'select it' },
  { section: 'view', mouse: 'Shift + click an agent', does: 'add it to the selection, or take it out' },
  { section: 'view', mouse: 'double-click an agent', does: "select its group's agents on screen" },
  { section: 'view', mouse: 'click the ground', does: 'clear the selection' },
  { section: 'view', mouse: 'drag on the ground', does: 'select the agents in the box' },
  { section: 'view', mouse: 'Shift + drag', does: 'add the agents in the box to the selection' },
  {
    section: 'view',
    mouse: 'right-click the ground',
    does: 'send the selection there, each keeping its place in the group (arrive)',
    commands: true,
  },
  {
    section: 'view',
    mouse: 'Shift + right-click the ground',
    does: "queue it: there after the selection's current orders (a selected agent's route is drawn, a dot on each point)",
    commands: true,
  },
  {
    section: 'view',
    mouse: 'right-click an enemy',
    does: "the selection attacks it (an enemy: another team's agent, for a player; else another group's); the line under the map says so",
    commands: true,
  },
  {
    section: 'view',
    mouse: 'right-click another agent',
    does: 'the selection follows it; the line under the map says so',
    commands: true,
  },
  {
    section: 'view',
    mouse: 'Alt + right-click an agent or an obstacle',
    does: 'a menu: what the selection can do to the agent (attack, pursue, flee...), or remove the obstacle',
    commands: true,
  },
  { section: 'view', keys: ['Control', 'A'], join: '+', action: 'selectAll', does: 'select every agent' },
  {
    section: 'view',
    keys: ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'],
    join: '…',
    action: 'selectGroup',
    does: 'select group 0 … 9 (Shift adds it)',
  },
  { section: 'view', mouse: 'wheel', does: 'zoom at the cursor' },
  {
    section: 'view',
    mouse: 'middle drag',
    keys: ['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown'],
    join: ' ',
    action: 'pan',
    does: 'pan',
  },
  { section: 'view', keys: ['F'], action: 'fit', does: 'fit the whole world in the view' },
  {
    section: 'view',
    keys: ['N'],
    action: 'minimap',
    does: "the minimap on/off: the whole world and the view's frame; click or drag on it to move the view",
  },
  {
    section: 'view',
    keys: ['V'],
    action: 'teamView',
    does: "a spectator's view: the whole world, then each team's in turn (only what it sees, its fog drawn), then the whole world again",
  },
  {
    section: 'view',
    keys: ['S'],
    action: 'spawn',
    does: "spawn 10 agents at the cursor (the selection's group, else 0)",
    commands: true,
  },
  {
    section: 'view',
    keys: ['A'],
    action: 'attackMove',
    does: 'attack-move: the next right-click sends the selection there, engaging the enemies (other groups) it meets on the way; Shift + right-click queues it and keeps it armed',
    commands: true,
    button: 'attack-move',
  },
  {
    section: 'view',
    keys: ['Q'],
    action: 'patrol',
    does: 'patrol: the next right-click sends the selection there and back, again and again; Shift + right-click adds a point to the route, sent by the last plain right-click or when Shift is let go',
    commands: true,
    button: 'patrol',
  },
  {
    section: 'view',
    keys: ['C'],
    action: 'stop',
    does: 'stop: the selection brakes and forgets its queued orders and patrols',
    commands: true,
    button: 'stop',
  },
  { section: 'view', keys: ['Delete', 'Backspace'], action: 'remove', does: 'remove the selected agents', commands: true },
  { section: 'view', keys: ['O'], action: 'obstacle', does: 'place an obstacle (radius 20) at the cursor', commands: true },
  {
    section: 'view',
    keys: ['Escape'],
    action: 'escape',
    does: 'close the palette or a menu, else the help, else disarm `A` or `Q`, else leave paint mode, else clear the selection',
  },
  {
    section: 'view',
    keys: ['I'],
    action: 'inspector',
    does: 'inspector on/off: why the selected agents move (drawn for the one under the cursor, else the first 3)',
  },
  { section: 'view', keys: ['E'], action: 'goals', does: "every agent's goal and queued route on/off (else only the selection's)" },
  {
    section: 'view',
    keys: ['D'],
    action: 'heat',
    does: 'the heat map on/off: agents per square unit of each cell, under the agents, with its legend (the server sends it twice a second); Shift + `D`: mean speed instead, and back',
  },
  { section: 'view', keys: ['M'], action: 'paint', does: 'paint walls on the tile map on/off', commands: true },
  { section: 'view', mouse: 'drag (painting)', does: 'block the tiles it passes over', commands: true },
  { section: 'view', mouse: 'Shift + drag, right drag', does: 'clear them again', commands: true },
  {
    section: 'view',
    keys: [':'],
    action: 'palette',
    does: 'the command palette: every command of the protocol, found by typing, sent from a form',
  },
  { section: 'view', keys: ['H', '?'], action: 'help', does: 'the help on/off' },

  { section: 'bar', keys: [' '], action: 'pause', does: 'pause or resume the world', commands: true },
  { section: 'bar', keys: ['.'], action: 'step', does: 'while paused: step the ticks set beside *step*', commands: true },
  { section: 'bar', keys: ['X'], action: 'reset', does: 'reset: rebuild the running scenario', commands: true },
  { section: 'bar', keys: ['L'], action: 'pickScenario', does: 'choose a scenario to load', commands: true },
  { section: 'bar', keys: ['[', ']'], join: ' ', action: 'tickRate', does: 'fewer or more ticks per second', commands: true },
  { section: 'bar', keys: ['{', '}'], join: ' ', action: 'snapshotRate', does: 'fewer or more snapshots per second', commands: true },

  { section: 'demo', keys: ['R'], action: 'demo', does: 'a circle round the centre of the world', commands: true, button: 'circle' },
  {
    section: 'demo',
    keys: ['B'],
    action: 'demo',
    does: 'switch places at random; after `G`: the two groups exchange sides; after `P`: the lines invert and switch sides',
    commands: true,
    button: 'switch',
  },
  {
    section: 'demo',
    keys: ['T'],
    action: 'demo',
    does: 'split into 3 groups, each crosses to the opposite side',
    commands: true,
    button: 'cross',
  },
  { section: 'demo', keys: ['G'], action: 'demo', does: 'split into 2 groups, in two blocks', commands: true, button: 'blocks' },
  { section: 'demo', keys: ['P'], action: 'demo', does: 'split into 2 vertical lines, in id order', commands: true, button: 'lines' },

  // Touch screens (touch.js): no keys, so the demo's moves are buttons under the map.
  { section: 'touch', mouse: 'tap an agent', does: 'select it' },
  {
    section: 'touch',
    mouse: 'long press an agent',
    does: "with others selected: the menu of what they can do to it (and to add it to them); else add it to the selection, or take it out",
  },
  { section: 'touch', mouse: 'tap the ground', does: 'send the selection there, each keeping its place (arrive)', commands: true },
  { section: 'touch', mouse: 'long press an obstacle', does: 'the menu: remove it', commands: true },
  { section: 'touch', mouse: 'long press the ground', does: 'clear the selection' },
  { section: 'touch', mouse: 'drag', does: 'pan' },
  { section: 'touch', mouse: 'pinch', does: 'zoom about the point between the fingers' },
  {
    section: 'touch',
    mouse: 'the attack-move, patrol and stop buttons',
    does: 'as `A`, `Q` and `C`: the next tap on the ground sends the selection there attacking the enemies it meets, or there and back again and again; stop brakes it',
    commands: true,
  },
  {
    section: 'touch',
    mouse: "the demo's buttons (the operator's)",
    does: "the demo's moves, as its keys play them",
    commands: true,
  },
];

// How a key is written where it is shown, when not as its KeyboardEvent.key.
/** @type {Readonly<Record<string, string>>} */
const KEY_LABELS = {
  ' ': 'Space',
  Control: 'Ctrl',
  Escape: 'Esc',
  ArrowLeft: '←',
  ArrowRight: '→',
  ArrowUp: '↑',
  ArrowDown: '↓',
};

/** @param {string} key a KeyboardEvent.key value @returns {string} how it is shown */
export function keyLabel(key) {
  return KEY_LABELS[key] ?? key;
}

// The keys of the rows whose action is `action`, in the table's order (DEMO_KEYS, the tests).
/** @param {string} action @returns {string[]} */
export function keysOf(action) {
  return KEY_ROWS.filter((r) => r.action === action).flatMap((r) => r.keys ?? []);
}

// The actions whose keys send a command or a server control (rows marked `commands`): input.js
// ignores them on a page the server welcomed as viewer.
export const COMMAND_ACTIONS = new Set(KEY_ROWS.filter((r) => r.commands && r.action).map((r) => /** @type {string} */ (r.action)));

// KeyboardEvent.key -> action, for the keys pressed alone: a chord is not (its key alone is not
// bound), nor is a range (the digits are bound by their place, ev.code: Shift + 1 types '!').
const BY_KEY = new Map(
  KEY_ROWS.filter((r) => r.action && r.join !== '+' && r.join !== '…').flatMap((r) =>
    (r.keys ?? []).map((k) => /** @type {[string, string]} */ ([k, /** @type {string} */ (r.action)])),
  ),
);

// The action of a key pressed without Ctrl, Alt or Meta, or null if it has none; letters in either case.
/** @param {string} key a KeyboardEvent.key value @returns {string | null} */
export function keyAction(key) {
  return BY_KEY.get(key.length === 1 ? key.toUpperCase() : key) ?? null;
}

/**
 * A run of a row's text: plain, a key or emphasis.
 * @typedef {{text: string, kind: 'text' | 'kbd' | 'em'}} Inline
 */

// A row's text (see the top) as runs; a lone ` or * is plain text.
/** @param {string} text @returns {Inline[]} */
export function inlineRuns(text) {
  /** @type {Inline[]} */
  const runs = [];
  const re = /`([^`]+)`|\*([^*]+)\*/g;
  let at = 0;
  for (const m of text.matchAll(re)) {
    const index = /** @type {number} */ (m.index);
    if (index > at) runs.push({ text: text.slice(at, index), kind: 'text' });
    runs.push(m[1] !== undefined ? { text: m[1], kind: 'kbd' } : { text: m[2], kind: 'em' });
    at = index + m[0].length;
  }
  if (at < text.length) runs.push({ text: text.slice(at), kind: 'text' });
  return runs;
}

// A row's label as runs: the mouse's part, then its keys as `join` says.
/** @param {KeyRow} row @returns {Inline[]} */
export function labelRuns(row) {
  /** @type {Inline[]} */
  const runs = [];
  if (row.mouse) runs.push({ text: row.mouse, kind: 'text' });
  const keys = row.keys ?? [];
  if (keys.length === 0) return runs;
  if (runs.length > 0) runs.push({ text: ', ', kind: 'text' });
  const join = row.join ?? 'or';
  const shown = join === '…' ? [keys[0], /** @type {string} */ (keys.at(-1))] : keys;
  const between = join === 'or' ? ' or ' : join === '+' ? ' + ' : ' ';
  shown.forEach((k, i) => {
    if (i > 0) runs.push({ text: join === '…' ? ' … ' : between, kind: 'text' });
    runs.push({ text: keyLabel(k), kind: 'kbd' });
  });
  return runs;
}

// Runs as Markdown (the README): keys as <kbd>, emphasis as *word*. A cell's '|' would end it, and
// '<' '&' would be markup: escaped, though the table has none today.
/** @param {Inline[]} runs @returns {string} */
function markdown(runs) {
  const escape = (/** @type {string} */ s) =>
    s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/\|/g, '\\|').replace(/([*_`[\]\\])/g, '\\$1');
  return runs
    .map((r) => (r.kind === 'kbd' ? `<kbd>${escape(r.text)}</kbd>` : r.kind === 'em' ? `*${escape(r.text)}*` : escape(r.text)))
    .join('');
}

// The README's key list: a table per section (its title the first column's heading), its note under it.
/** @returns {string} */
export function keysMarkdown() {
  const blocks = KEY_SECTIONS.map((s) => {
    const lines = [`| ${markdown([{ text: s.title, kind: 'text' }])} | |`, '| --- | --- |'];
    for (const row of KEY_ROWS.filter((r) => r.section === s.id)) {
      lines.push(`| ${markdown(labelRuns(row))} | ${markdown(inlineRuns(row.does))} |`);
    }
    if (s.note) lines.push('', markdown([{ text: s.note, kind: 'text' }]));
    return lines.join('\n');
  });
  return `${blocks.join('\n\n')}\n`;
}
