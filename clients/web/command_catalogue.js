// @ts-check
// The protocol's commands as data: commands.json describes every `cmd` the server takes (each
// field's kind, presence, range, choices, default, a sample and a line of help; set_behaviour's
// fields per behaviour), and tests/protocol/command_catalogue_test.cpp holds it to the server's
// codec. The command palette (command_palette.js) and the right-click menu (context_menu.js) are
// built from it alone: a command the server learns appears in both without a line here.
//
// This module reads the catalogue: which fields a command takes (for a variant, such as a
// behaviour), what a form starts with, and how a form's text becomes the command's fields. Pure:
// no DOM (tests/web/command_catalogue.test.mjs runs it in Node).
// JSON modules need Chrome 123, Firefox 138 or Safari 17.2 and later (as theme.js's palette).

import CATALOGUE from './commands.json' with { type: 'json' };

/** @import { CommandFields, Obstacle } from '../js/src/protocol.js' */

/**
 * One field of a command (or of a list's items), as commands.json describes it.
 * @typedef {object} CatalogueField
 * @property {string} name
 * @property {string} kind selection, point, tile, agent, obstacle, integer, number, boolean, enum, string, rows, list, area
 * @property {string} presence required, optional, exactly_one, at_most_one or at_least_one
 * @property {string} help
 * @property {unknown} sample a valid value
 * @property {unknown} [default] what the server uses when it is left out
 * @property {number} [min]
 * @property {boolean} [min_exclusive]
 * @property {number} [max]
 * @property {(string | number)[]} [choices]
 * @property {string} [choices_from] the welcome's list of valid values ('scenarios')
 * @property {number} [min_length]
 * @property {number} [max_length]
 * @property {number} [min_items]
 * @property {number} [max_items]
 * @property {CatalogueField[]} [item]
 * @property {string} [with] applies only when this other field is given
 */

/** @typedef {{value: string, help: string, fields: Record<string, string>}} VariantCase */

/**
 * @typedef {object} CatalogueCommand
 * @property {string} cmd
 * @property {string} help
 * @property {boolean} [control] a server control (pause, step...), not a command for the world
 * @property {CatalogueField[]} fields
 * @property {{field: string, cases: VariantCase[]}} [variants]
 */

/** A field as a form takes it: its description and its presence there. @typedef {{field: CatalogueField, presence: string}} TakenField */

/**
 * What a form's defaults and checks read from the page.
 * @typedef {object} FormContext
 * @property {number[]} selected the selection's ids
 * @property {{width: number, height: number} | null} world
 * @property {{width: number, height: number} | null} map tiles across and down, or null
 * @property {Obstacle[]} obstacles
 * @property {Record<string, string[]>} lists the welcome's lists by name (choices_from): scenarios
 */

/** @type {CatalogueCommand[]} */
export const COMMANDS = /** @type {{commands: CatalogueCommand[]}} */ (/** @type {unknown} */ (CATALOGUE)).commands;

/** @param {string} cmd @returns {CatalogueCommand | undefined} */
export function commandNamed(cmd) {
  return COMMANDS.find((c) => c.cmd === cmd);
}

// The commands whose name or help holds every word of `query` (case and '_' or ' ' alike), those
// whose name starts with the query first, else in the catalogue's order.
/** @param {string} query @returns {CatalogueCommand[]} */
export function matchCommands(query) {
  const norm = (/** @type {string} */ s) => s.toLowerCase().replace(/_/g, ' ');
  const q = norm(query).trim();
  if (!q) return [...COMMANDS];
  const words = q.split(/\s+/);
  const hits = COMMANDS.filter((c) => words.every((w) => norm(`${c.cmd} ${c.help}`).includes(w)));
  const starts = (/** @type {CatalogueCommand} */ c) => (norm(c.cmd).startsWith(q) ? 0 : 1);
  return hits.map((c, i) => ({ c, i })).sort((a, b) => starts(a.c) - starts(b.c) || a.i - b.i).map((x) => x.c);
}

// The fields some case of the command names: the chosen case alone decides whether they apply.
/** @param {CatalogueCommand} command @returns {Set<string>} */
function variantFields(command) {
  return new Set((command.variants?.cases ?? []).flatMap((k) => Object.keys(k.fields)));
}

// The case of the command's variants for `value` (the first when value names none), or null.
/** @param {CatalogueCommand} command @param {unknown} [value] @returns {VariantCase | null} */
export function variantCase(command, value) {
  const cases = command.variants?.cases ?? [];
  return cases.find((k) => k.value === value) ?? cases[0] ?? null;
}

// The fields a command takes for the variant `value` (its variants' field's value), in the
// catalogue's order, each with its presence there.
/** @param {CatalogueCommand} command @param {unknown} [value] @returns {TakenField[]} */
export function takenFields(command, value) {
  const governed = variantFields(command);
  const kase = variantCase(command, value);
  /** @type {TakenField[]} */
  const out = [];
  for (const field of command.fields) {
    const presence = governed.has(field.name) ? kase?.fields[field.name] : field.presence;
    if (presence) out.push({ field, presence });
  }
  return out;
}

// The members of each group of fields of which exactly one, or at most one, is given, by presence.
/** @param {TakenField[]} taken @returns {{exactly_one: string[], at_most_one: string[]}} */
export function exclusiveGroups(taken) {
  const names = (/** @type {string} */ p) => taken.filter((t) => t.presence === p).map((t) => t.field.name);
  return { exactly_one: names('exactly_one'), at_most_one: names('at_most_one') };
}

// ---- text <-> values --------------------------------------------------------------------------

const round3 = (/** @type {number} */ v) => Math.round(v * 1000) / 1000;

// A selection as herd-ctl writes it: "all", "group:G", "rect:X0,Y0,X1,Y1", "group:G@X0,Y0,X1,Y1"
// or ids "1,2,3". The selection's ids, or "all" when nothing is selected.
/** @param {number[]} ids @returns {string} */
export function selectionText(ids) {
  return ids.length > 0 ? [...ids].sort((a, b) => a - b).join(',') : 'all';
}

/** @param {string} text @param {number} count @returns {number[] | null} */
function numbers(text, count) {
  const parts = text.split(/[\s,]+/).filter((p) => p !== '');
  if (count > 0 && parts.length !== count) return null;
  if (parts.length === 0) return null;
  const v = parts.map(Number);
  return v.every(Number.isFinite) ? v : null;
}

/** @param {string} text @returns {unknown} the wire's selection, or undefined */
export function parseSelection(text) {
  const s = text.trim();
  if (s === 'all') return 'all';
  /** @param {string} r */
  const rect = (r) => {
    const v = numbers(r, 4);
    return v ? { x0: v[0], y0: v[1], x1: v[2], y1: v[3] } : undefined;
  };
  if (s.startsWith('rect:')) {
    const r = rect(s.slice(5));
    return r ? { rect: r } : undefined;
  }
  if (s.startsWith('team:')) {
    const t = s.slice(5).trim();
    const team = Number(t);
    return t !== '' && Number.isInteger(team) && team >= 0 && team <= 63 ? { team } : undefined;
  }
  if (s.startsWith('group:')) {
    const [g, r] = s.slice(6).split('@');
    const group = Number(g);
    if (g.trim() === '' || !Number.isInteger(group) || group < 0 || group > 255) return undefined;
    if (r === undefined) return { group };
    const box = rect(r);
    return box ? { group, rect: box } : undefined;
  }
  const ids = numbers(s, 0);
  if (!ids || !ids.every((id) => Number.isInteger(id) && id >= 0 && id <= 4294967295)) return undefined;
  return ids;
}

// The text a form field of this kind starts with, from the page (see FormContext).
/** @param {CatalogueField} field @param {string} presence @param {FormContext} ctx @returns {string} */
export function initialText(field, presence, ctx) {
  // Optional fields start empty (left out: the server's default); the others with a value to send.
  if (presence === 'optional' || presence === 'at_least_one') return '';
  switch (field.kind) {
    case 'selection':
      return selectionText(ctx.selected);
    case 'point':
      return ctx.world ? `${round3(ctx.world.width / 2)}, ${round3(ctx.world.height / 2)}` : '';
    case 'tile':
      return ctx.map ? `${Math.floor(ctx.map.width / 2)}, ${Math.floor(ctx.map.height / 2)}` : '0, 0';
    case 'area': // the middle quarter of the world
      return ctx.world
        ? [ctx.world.width / 4, ctx.world.height / 4, ctx.world.width / 2, ctx.world.height / 2].map(round3).join(', ')
        : '';
    case 'agent':
      return ''; // picked: a click on an agent, or typed
    case 'obstacle':
      return ctx.obstacles.length > 0 ? String(ctx.obstacles[0].id) : '';
    case 'enum':
      return String(field.choices?.[0] ?? '');
    case 'boolean':
      return String(field.sample);
    case 'string':
      return field.choices_from ? (ctx.lists[field.choices_from]?.[0] ?? '') : String(field.sample ?? '');
    case 'rows':
      return Array.isArray(field.sample) ? field.sample.join('\n') : '';
    case 'list':
      return JSON.stringify(field.sample);
    default:
      return field.sample === undefined ? '' : String(field.sample);
  }
}

// The range a number field takes, as words: "[1, 1000]", "(0, 1000]", "≥ 1".
/** @param {CatalogueField} field @returns {string} */
export function rangeText(field) {
  const lo = field.min !== undefined ? `${field.min_exclusive ? '(' : '['}${field.min}` : null;
  const hi = field.max !== undefined ? `${field.max}]` : null;
  if (lo && hi) return `${lo}, ${hi}`;
  if (lo) return `${field.min_exclusive ? '>' : '≥'} ${field.min}`;
  if (hi) return `≤ ${field.max}`;
  return '';
}

// Reads one field's text as its wire value: {value} or {error} (which names the field).
/** @param {CatalogueField} field @param {string} text @returns {{value: unknown} | {error: string}} */
export function parseField(field, text) {
  const name = field.name;
  const t = text.trim();
  /** @param {number} v */
  const inRange = (v) =>
    (field.min === undefined || (field.min_exclusive ? v > field.min : v >= field.min)) && (field.max === undefined || v <= field.max);
  const range = rangeText(field);
  switch (field.kind) {
    case 'selection': {
      const v = parseSelection(t);
      return v === undefined ? { error: `${name}: all, group:G, rect:X0,Y0,X1,Y1, group:G@X0,Y0,X1,Y1 or ids like 1,2,3` } : { value: v };
    }
    case 'point': {
      const v = numbers(t, 2);
      return v ? { value: { x: v[0], y: v[1] } } : { error: `${name}: two numbers, x, y` };
    }
    case 'area': {
      const v = numbers(t, 4);
      return v && v[2] > 0 && v[3] > 0
        ? { value: { x: v[0], y: v[1], width: v[2], height: v[3] } }
        : { error: `${name}: four numbers, x, y, width, height (width and height above 0)` };
    }
    case 'tile': {
      const v = numbers(t, 2);
      return v && v.every(Number.isInteger) ? { value: { x: v[0], y: v[1] } } : { error: `${name}: two whole numbers, the tile's x, y` };
    }
    case 'agent':
    case 'obstacle':
    case 'integer': {
      const v = Number(t);
      if (t === '' || !Number.isInteger(v)) return { error: `${name}: a whole number${range ? ' in ' + range : ''}` };
      return inRange(v) ? { value: v } : { error: `${name}: must be in ${range}` };
    }
    case 'number': {
      const v = Number(t);
      if (t === '' || !Number.isFinite(v)) return { error: `${name}: a number${range ? ' in ' + range : ''}` };
      return inRange(v) ? { value: v } : { error: `${name}: must be in ${range}` };
    }
    case 'boolean':
      return t === 'true' || t === 'false' ? { value: t === 'true' } : { error: `${name}: true or false` };
    case 'enum': {
      const choice = (field.choices ?? []).find((c) => String(c) === t);
      return choice === undefined ? { error: `${name}: one of ${(field.choices ?? []).join(', ')}` } : { value: choice };
    }
    case 'string': {
      const bytes = new TextEncoder().encode(text).length;
      if (bytes < (field.min_length ?? 0) || bytes > (field.max_length ?? Infinity)) {
        return { error: `${name}: ${field.min_length ?? 0} to ${field.max_length} bytes` };
      }
      return { value: text };
    }
    case 'rows': {
      const rows = t.split('\n').map((r) => r.trim()).filter((r) => r !== '');
      return rows.length > 0 ? { value: rows } : { error: `${name}: one line per row` };
    }
    case 'list': {
      let v;
      try {
        v = JSON.parse(t);
      } catch {
        return { error: `${name}: a JSON array of objects` };
      }
      const ok = Array.isArray(v) && v.every((i) => i !== null && typeof i === 'object' && !Array.isArray(i));
      return ok ? { value: v } : { error: `${name}: a JSON array of objects` };
    }
    default:
      return { error: `${name}: a field of kind ${field.kind}, which this page cannot read` };
  }
}

/**
 * A form's state: each field's text by name, the variant's value (in texts, under the variants'
 * field), and which member of each exclusive group is given ('' for none).
 * @typedef {object} FormState
 * @property {Record<string, string>} texts
 * @property {{exactly_one: string, at_most_one: string}} chosen
 */

// What a new form for `command` holds: every field's starting text, and each group's first member
// (none for at_most_one). `given` overrides texts (the right-click menu's agent, say).
/**
 * @param {CatalogueCommand} command
 * @param {FormContext} ctx
 * @param {Record<string, string>} [given]
 * @returns {FormState}
 */
export function newForm(command, ctx, given = {}) {
  /** @type {Record<string, string>} */
  const texts = {};
  const value = command.variants ? given[command.variants.field] : undefined;
  const taken = takenFields(command, value);
  // A field of another variant starts empty: switchVariant fills it when its variant is chosen.
  for (const field of command.fields) {
    const presence = taken.find((t) => t.field === field)?.presence ?? 'optional';
    texts[field.name] = initialText(field, presence, ctx);
  }
  Object.assign(texts, given);
  const groups = exclusiveGroups(taken);
  const givenMember = (/** @type {string[]} */ members) => members.find((m) => given[m] !== undefined && given[m] !== '');
  return {
    texts,
    chosen: {
      exactly_one: givenMember(groups.exactly_one) ?? groups.exactly_one[0] ?? '',
      at_most_one: givenMember(groups.at_most_one) ?? '',
    },
  };
}

// The form after its variant (a behaviour, a shape) became `value`: the fields the variant governs
// start again as that variant takes them, but those the user has typed in (`edited`); each group
// keeps its chosen member while the variant has it.
/**
 * @param {CatalogueCommand} command
 * @param {FormState} form
 * @param {string} value
 * @param {FormContext} ctx
 * @param {Set<string>} [edited]
 * @returns {FormState}
 */
export function switchVariant(command, form, value, ctx, edited = new Set()) {
  if (!command.variants) return form;
  const texts = { ...form.texts, [command.variants.field]: value };
  const taken = takenFields(command, value);
  for (const name of variantFields(command)) {
    if (edited.has(name)) continue;
    const t = taken.find((x) => x.field.name === name);
    texts[name] = t ? initialText(t.field, t.presence, ctx) : '';
  }
  const groups = exclusiveGroups(taken);
  /** @param {string[]} members @param {string} current @param {string} otherwise */
  const keep = (members, current, otherwise) => (members.includes(current) ? current : otherwise);
  return {
    texts,
    chosen: {
      exactly_one: keep(groups.exactly_one, form.chosen.exactly_one, groups.exactly_one[0] ?? ''),
      at_most_one: keep(groups.at_most_one, form.chosen.at_most_one, ''),
    },
  };
}

// The fields a form shows: those its variant takes, but the members of an exclusive group that
// are not the chosen one, and a `with` field whose field is not shown.
/** @param {CatalogueCommand} command @param {FormState} form @returns {TakenField[]} */
export function shownFields(command, form) {
  const value = command.variants ? form.texts[command.variants.field] : undefined;
  const taken = takenFields(command, value);
  const shown = taken.filter((t) => {
    if (t.presence === 'exactly_one') return t.field.name === form.chosen.exactly_one;
    if (t.presence === 'at_most_one') return t.field.name === form.chosen.at_most_one;
    return true;
  });
  return shown.filter((t) => !t.field.with || shown.some((s) => s.field.name === t.field.with));
}

// The command a form stands for: {fields} to send (cmd and the given fields), or {error} naming
// the first field that cannot be read. Optional fields left empty are left out.
/** @param {CatalogueCommand} command @param {FormState} form @returns {{fields: CommandFields} | {error: string}} */
export function formCommand(command, form) {
  /** @type {CommandFields} */
  const fields = { cmd: command.cmd };
  for (const { field, presence } of shownFields(command, form)) {
    const text = form.texts[field.name] ?? '';
    if (text.trim() === '' && (presence === 'optional' || presence === 'at_least_one')) continue;
    if (text.trim() === '' && field.kind !== 'string') return { error: `${field.name} is required` };
    const read = parseField(field, text);
    if ('error' in read) return read;
    fields[field.name] = read.value;
  }
  return { fields };
}

// ---- the right-click menu ---------------------------------------------------------------------

/**
 * What the selection can do to an agent, or anyone to an obstacle: a command (and variant) that
 * takes a field of that kind. `given` is what the menu fills in; `complete` when nothing else is
 * required, so the item sends at once (else it opens the palette's form with those filled in).
 * @typedef {object} MenuAction
 * @property {string} label
 * @property {string} help
 * @property {CatalogueCommand} command
 * @property {string} [variant]
 * @property {string} target the field that names the agent or the obstacle
 * @property {string | null} selection the selection field the menu fills, or null
 */

// The actions on a thing of `kind` ('agent' or 'obstacle'): every command and variant of the
// catalogue that takes a field of that kind; for an agent, only those with a selection to act
// (the agent is the object, the selection the subject).
/** @param {'agent' | 'obstacle'} kind @returns {MenuAction[]} */
export function menuActions(kind) {
  /** @type {MenuAction[]} */
  const out = [];
  for (const command of COMMANDS) {
    const cases = command.variants ? command.variants.cases : [null];
    for (const kase of cases) {
      const taken = takenFields(command, kase?.value);
      const target = taken.find((t) => t.field.kind === kind && t.presence !== 'optional');
      if (!target) continue;
      const selection = taken.find((t) => t.field.kind === 'selection' && t.presence === 'required');
      if (kind === 'agent' && !selection) continue;
      out.push({
        label: kase ? kase.value : command.cmd.replace(/_/g, ' '),
        help: kase ? kase.help : command.help,
        command,
        variant: kase?.value,
        target: target.field.name,
        selection: selection ? selection.field.name : null,
      });
    }
  }
  return out;
}

// A menu action's form: the target named by `id`, the selection, the variant; and whether the
// command is complete without anything the user must add (a required field the page cannot fill).
/**
 * @param {MenuAction} action
 * @param {number} id the agent's or obstacle's id
 * @param {FormContext} ctx
 * @returns {{form: FormState, complete: boolean}}
 */
export function menuForm(action, id, ctx) {
  const { command } = action;
  /** @type {Record<string, string>} */
  const given = { [action.target]: String(id) };
  if (action.selection) given[action.selection] = selectionText(ctx.selected);
  if (command.variants && action.variant !== undefined) given[command.variants.field] = action.variant;
  const form = newForm(command, ctx, given);
  // Complete: every required field the menu did not fill has a value to send from the start.
  const complete = shownFields(command, form).every(
    (t) => t.presence !== 'required' || given[t.field.name] !== undefined || !needsUser(t.field),
  );
  return { form, complete: complete && !('error' in formCommand(command, form)) };
}

// A required field of this kind is the user's to choose: the menu does not pick one for them.
/** @param {CatalogueField} field @returns {boolean} */
function needsUser(field) {
  return !['selection', 'enum'].includes(field.kind);
}
