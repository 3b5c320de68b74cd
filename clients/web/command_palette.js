// @ts-check
// The command palette: every command of the protocol, found by typing, each sent from a form built
// from the command catalogue (command_catalogue.js, commands.json): a selection field starts as
// the page's selection (or "all"), a point, a tile, an agent or an obstacle can be typed or picked
// with a click in the world, a choice is a list, numbers carry their ranges; a map's rows and lists
// of agents or tiles are text. Send goes the page's one way (session.js), and the form shows the
// server's answer, ack or error with its code. Opened by its key (keys.js) or the header's button;
// Esc closes it. A page the server welcomed as viewer opens it too, says why it sends nothing,
// and sends nothing.

import {
  COMMANDS,
  commandNamed,
  exclusiveGroups,
  formCommand,
  matchCommands,
  newForm,
  rangeText,
  selectionText,
  shownFields,
  switchVariant,
  takenFields,
} from './command_catalogue.js';

/** @import { CatalogueCommand, CatalogueField, FormContext, FormState } from './command_catalogue.js' */
/** @import { Agent, CommandFields, Obstacle, Point, ServerMessage } from '../js/src/protocol.js' */

/**
 * What is under a point of the page: the world point (inside the world), the agent, the obstacle
 * and the map's tile there (each null when there is none).
 * @typedef {{world: Point | null, agent: Agent | null, obstacle: Obstacle | null, tile: Point | null}} PickedThing
 */

/**
 * What the palette reads and sends through (main.js's pieces).
 * @typedef {object} PalettePieces
 * @property {() => FormContext} context
 * @property {(fields: CommandFields) => number | null} send the page's commands, numbered (session.js)
 * @property {() => boolean} viewOnly
 * @property {() => string} notice why the page may not command ('' when it may)
 * @property {HTMLCanvasElement} canvas the world, where a field is picked with a click
 * @property {(clientX: number, clientY: number) => PickedThing} locate
 */

// The kinds a click in the world can fill in, and what it takes from there.
/** @type {Partial<Record<string, (t: PickedThing) => string | null>>} */
const PICKERS = {
  point: (t) => (t.world ? `${t.world.x}, ${t.world.y}` : null),
  tile: (t) => (t.tile ? `${t.tile.x}, ${t.tile.y}` : null),
  agent: (t) => (t.agent ? String(t.agent.id) : null),
  obstacle: (t) => (t.obstacle ? String(t.obstacle.id) : null),
};
const MAX_AGENTS_SHOWN = 6; // an ack's agent ids beyond this are shown as a range

// An element of index.html by id (the page has every one asked for here), of the type it is there.
/** @template {HTMLElement} [T=HTMLElement] @param {string} id @returns {T} */
const $ = (id) => /** @type {T} */ (document.getElementById(id));

/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, string>} [attrs]
 * @param {(Node | string)[]} [children]
 * @returns {HTMLElementTagNameMap[K]}
 */
function el(tag, attrs = {}, children = []) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...children);
  return e;
}

export class CommandPalette {
  /** @param {PalettePieces} pieces */
  constructor(pieces) {
    this.pieces = pieces;
    this.root = $('palette');
    this.filter = el('input', {
      id: 'palette-filter',
      type: 'search',
      placeholder: 'type to find a command',
      'aria-label': 'find a command',
      autocomplete: 'off',
      spellcheck: 'false',
      'aria-controls': 'palette-list',
    });
    this.list = el('ul', { id: 'palette-list', role: 'listbox', 'aria-label': 'commands' });
    this.form = el('form', { id: 'palette-form', novalidate: '' });
    this.note = el('p', { id: 'palette-note', class: 'note', role: 'note' });
    this.root.append(el('div', { class: 'title' }, ['commands']), this.filter, this.list, this.form, this.note);
    this.form.hidden = true;
    /** @type {CatalogueCommand[]} */
    this.matches = [...COMMANDS];
    this.active = 0; // the list's highlighted command
    /** @type {CatalogueCommand | null} */
    this.command = null; // the command whose form is open
    /** @type {FormState | null} */
    this.state = null;
    /** @type {Set<string>} */
    this.edited = new Set(); // fields the user typed in or picked: a new variant keeps them
    /** @type {{name: string, kind: string} | null} */
    this.picking = null;
    /** @type {number | null} */
    this.awaiting = null; // the seq of the command sent last, whose answer the form shows

    this.filter.addEventListener('input', () => this.#renderList());
    this.filter.addEventListener('keydown', (ev) => this.#listKey(ev));
    this.form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      this.sendForm();
    });
    // Keys typed here are the palette's: none reaches the page's keys (input.js), and Esc closes.
    this.root.addEventListener('keydown', (ev) => {
      if (ev.key === 'Escape') {
        this.#escape();
        ev.preventDefault();
      }
      ev.stopPropagation();
    });
    // Esc with the focus elsewhere (after a click in the world) still closes it, before the
    // page's own Esc (the help, the selection) sees the key.
    window.addEventListener(
      'keydown',
      (ev) => {
        if (ev.key !== 'Escape' || !this.isOpen || this.root.contains(/** @type {Node} */ (ev.target))) return;
        this.#escape();
        ev.stopPropagation();
        ev.preventDefault();
      },
      true,
    );
    // A field being picked takes the next click in the world, before selection or orders see it.
    for (const type of ['pointerdown', 'mousedown', 'click', 'dblclick']) {
      window.addEventListener(
        type,
        (ev) => {
          if (!this.picking || ev.target !== this.pieces.canvas || !(ev instanceof MouseEvent) || ev.button !== 0) return;
          ev.stopPropagation();
          ev.preventDefault();
          if (type === 'click') this.#picked(ev);
        },
        true,
      );
    }
  }

  get isOpen() {
    return !this.root.hidden;
  }

  // Opens the list of commands (or, open already, takes the keys to its filter).
  open() {
    if (!this.isOpen) {
      this.root.hidden = false;
      this.filter.value = '';
      this.#showList();
    }
    this.#renderNote();
    this.filter.focus();
  }

  close() {
    this.#stopPicking();
    this.root.hidden = true;
    if (document.activeElement instanceof HTMLElement && this.root.contains(document.activeElement)) document.activeElement.blur();
  }

  toggle() {
    if (this.isOpen) this.close();
    else this.open();
  }

  // Opens command `cmd`'s form; `state` fills it in (the right-click menu's), else the page's
  // selection and the catalogue's starting values.
  /** @param {string} cmd @param {FormState} [state] */
  openCommand(cmd, state) {
    const command = commandNamed(cmd);
    if (!command) return;
    this.root.hidden = false;
    this.command = command;
    this.state = state ?? newForm(command, this.pieces.context());
    this.edited = new Set(state ? Object.keys(state.texts).filter((k) => state.texts[k] !== '') : []);
    this.awaiting = null;
    this.list.hidden = true;
    this.filter.hidden = true;
    this.form.hidden = false;
    this.#renderForm();
    this.#renderNote();
    const first = /** @type {HTMLElement | null} */ (this.form.querySelector('.pf-fields input, .pf-fields select, .pf-fields textarea'));
    (first ?? /** @type {HTMLElement} */ (this.form.querySelector('#palette-send'))).focus();
  }

  // Every message from the server: the answer to the command sent last is shown in its form.
  /** @param {ServerMessage} msg */
  answer(msg) {
    if ((msg.type !== 'ack' && msg.type !== 'error') || msg.seq === undefined || msg.seq !== this.awaiting) return;
    this.awaiting = null;
    if (msg.type === 'ack') {
      const parts = [`tick ${msg.tick}`];
      if (msg.count !== undefined) parts.push(`count ${msg.count}`);
      if (msg.agents) parts.push(`agents ${idsText(msg.agents)}`);
      if (msg.obstacle !== undefined) parts.push(`obstacle ${msg.obstacle}`);
      if (msg.formation !== undefined) parts.push(`formation ${msg.formation}`);
      this.#setAnswer('ack', `ack · ${parts.join(' · ')}`, msg.seq);
    } else {
      this.#setAnswer('error', `error ${msg.code}: ${msg.message}`, msg.seq);
    }
  }

  // Send: the form's command, once it reads (else what is wrong, sent nowhere).
  sendForm() {
    if (!this.command || !this.state) return;
    if (this.pieces.viewOnly()) {
      this.#renderNote();
      return;
    }
    const built = formCommand(this.command, this.state);
    if ('error' in built) {
      this.#setAnswer('invalid', built.error, null);
      return;
    }
    const seq = this.pieces.send(built.fields);
    this.awaiting = seq;
    if (seq === null) this.#setAnswer('invalid', 'not sent: not connected', null);
    else this.#setAnswer('sent', `sent, waiting for the answer (seq ${seq})`, seq);
  }

  // ---- the list ---------------------------------------------------------------------------------

  #showList() {
    this.#stopPicking();
    this.command = null;
    this.state = null;
    this.form.hidden = true;
    this.filter.hidden = false;
    this.list.hidden = false;
    this.active = 0;
    this.#renderList();
  }

  #renderList() {
    this.matches = matchCommands(this.filter.value);
    this.active = Math.min(this.active, Math.max(0, this.matches.length - 1));
    const items = this.matches.map((c, i) => {
      const li = el('li', { id: `palette-cmd-${c.cmd}`, role: 'option', 'data-cmd': c.cmd, 'aria-selected': String(i === this.active) }, [
        el('b', {}, [c.cmd]),
        el('span', { class: 'muted' }, [c.control ? `server · ${c.help}` : c.help]),
      ]);
      li.addEventListener('click', () => this.openCommand(c.cmd));
      return li;
    });
    if (items.length === 0) items.push(el('li', { class: 'muted' }, ['no command matches']));
    this.list.replaceChildren(...items);
    if (this.matches.length > 0) this.filter.setAttribute('aria-activedescendant', `palette-cmd-${this.matches[this.active].cmd}`);
    else this.filter.removeAttribute('aria-activedescendant');
  }

  /** @param {KeyboardEvent} ev */
  #listKey(ev) {
    const n = this.matches.length;
    if (ev.key === 'ArrowDown' || ev.key === 'ArrowUp') {
      if (n === 0) return;
      this.active = (this.active + (ev.key === 'ArrowDown' ? 1 : n - 1)) % n;
      this.#renderList();
      this.list.querySelector('[aria-selected="true"]')?.scrollIntoView({ block: 'nearest' });
      ev.preventDefault();
    } else if (ev.key === 'Enter') {
      if (n > 0) this.openCommand(this.matches[this.active].cmd);
      ev.preventDefault();
    }
  }

  // ---- the form ---------------------------------------------------------------------------------

  #renderForm() {
    const command = /** @type {CatalogueCommand} */ (this.command);
    const state = /** @type {FormState} */ (this.state);
    const back = el('button', { type: 'button', class: 'pf-back', title: 'back to the commands' }, ['←']);
    back.addEventListener('click', () => {
      this.#showList();
      this.filter.focus();
    });
    const head = el('div', { class: 'pf-head' }, [back, el('b', { class: 'pf-cmd' }, [command.cmd]), ' ', el('span', { class: 'muted' }, [command.help])]);
    const fields = el('div', { class: 'pf-fields' });
    const value = command.variants ? state.texts[command.variants.field] : undefined;
    const groups = exclusiveGroups(takenFields(command, value));
    const shown = shownFields(command, state);
    /** @type {Set<string>} */
    const placed = new Set();
    for (const { field, presence } of takenFields(command, value)) {
      // An exclusive group's chooser stands where its first member would.
      const group = presence === 'exactly_one' || presence === 'at_most_one' ? presence : null;
      if (group && !placed.has(group) && (groups[group].length > 1 || group === 'at_most_one')) {
        placed.add(group);
        fields.append(this.#groupRow(group, groups[group]));
      }
      const t = shown.find((s) => s.field === field);
      if (t) fields.append(this.#fieldRow(t.field, t.presence));
    }
    if (command.fields.length === 0) fields.append(el('p', { class: 'muted' }, ['no fields']));
    const send = el('button', { type: 'submit', id: 'palette-send' }, ['send']);
    send.disabled = this.pieces.viewOnly();
    const answer = el('div', { id: 'palette-answer', role: 'status', 'aria-live': 'polite' });
    this.form.replaceChildren(head, fields, el('div', { class: 'pf-actions' }, [send, answer]));
  }

  // The chooser of an exclusive group: which one member is given (at_most_one: or none).
  /** @param {'exactly_one' | 'at_most_one'} group @param {string[]} members */
  #groupRow(group, members) {
    const state = /** @type {FormState} */ (this.state);
    const select = el('select', { id: `pf-give-${group}`, name: `#${group}`, 'aria-label': `give: ${members.join(' or ')}` });
    if (group === 'at_most_one') select.append(el('option', { value: '' }, ['none']));
    for (const m of members) select.append(el('option', { value: m }, [m]));
    select.value = state.chosen[group];
    select.addEventListener('change', () => {
      state.chosen[group] = select.value;
      this.#rerender(`#pf-give-${group}`);
    });
    const label = group === 'exactly_one' ? 'one of' : 'at most one of';
    return el('div', { class: 'pf-row pf-group' }, [
      el('label', { for: select.id }, ['give']),
      el('div', { class: 'pf-input' }, [select]),
      el('span', { class: 'pf-help muted' }, [`${label} ${members.join(', ')}`]),
    ]);
  }

  /** @param {CatalogueField} field @param {string} presence */
  #fieldRow(field, presence) {
    const command = /** @type {CatalogueCommand} */ (this.command);
    const state = /** @type {FormState} */ (this.state);
    const id = `pf-${field.name}`;
    const control = this.#control(field, presence, id);
    control.value = state.texts[field.name] ?? '';
    const selector = command.variants?.field === field.name;
    control.addEventListener(selector ? 'change' : 'input', () => {
      if (selector) {
        this.state = switchVariant(command, state, control.value, this.pieces.context(), this.edited);
        this.#rerender(`#${id}`);
        return;
      }
      state.texts[field.name] = control.value;
      this.edited.add(field.name);
    });
    const extras = [];
    if (PICKERS[field.kind]) {
      const b = el('button', { type: 'button', class: 'pf-pick', 'data-pick': field.name, title: `click in the world to fill in ${field.name}` }, ['pick']);
      b.addEventListener('click', () => this.#startPicking(field));
      extras.push(b);
    }
    if (field.kind === 'selection') {
      const b = el('button', { type: 'button', class: 'pf-pick', title: "the page's selection now (all when none)" }, ['selected']);
      b.addEventListener('click', () => {
        control.value = selectionText(this.pieces.context().selected);
        control.dispatchEvent(new Event('input'));
      });
      extras.push(b);
    }
    const mark = presence === 'required' || presence === 'exactly_one' ? '' : ' (optional)';
    const label = el('label', { for: id }, [field.name, el('span', { class: 'muted' }, [mark])]);
    const input = el('div', { class: 'pf-input' }, [control, ...extras]);
    return el('div', { class: 'pf-row', 'data-field': field.name }, [label, input, el('span', { class: 'pf-help muted' }, [helpText(field, command, state)])]);
  }

  // The input for a field of this kind.
  /** @param {CatalogueField} field @param {string} presence @param {string} id @returns {HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement} */
  #control(field, presence, id) {
    const optional = presence === 'optional' || presence === 'at_least_one' || presence === 'at_most_one';
    const attrs = { id, name: field.name };
    /** @param {(string | number)[]} choices */
    const select = (choices) => {
      const s = el('select', attrs);
      if (optional) s.append(el('option', { value: '' }, [field.default !== undefined ? `default (${field.default})` : 'left out']));
      for (const c of choices) s.append(el('option', { value: String(c) }, [String(c)]));
      return s;
    };
    const list = field.choices_from ? (this.pieces.context().lists[field.choices_from] ?? []) : [];
    switch (field.kind) {
      case 'enum':
        return select(field.choices ?? []);
      case 'boolean':
        return select([true, false].map(String));
      case 'rows':
      case 'list':
        return el('textarea', { ...attrs, rows: '5', spellcheck: 'false', placeholder: field.kind === 'rows' ? 'one row per line' : 'a JSON array' });
      case 'integer':
      case 'number':
      case 'agent':
      case 'obstacle': {
        const input = el('input', { ...attrs, type: 'number', step: field.kind === 'number' ? 'any' : '1' });
        if (field.min !== undefined && !field.min_exclusive) input.min = String(field.min);
        if (field.max !== undefined) input.max = String(field.max);
        if (field.kind === 'agent' || field.kind === 'obstacle') input.placeholder = `an ${field.kind} id`;
        return input;
      }
      case 'string':
        if (list.length > 0) return select(list);
        return el('input', { ...attrs, type: 'text', spellcheck: 'false' });
      default: // selection, point, tile, area
        return el('input', {
          ...attrs,
          type: 'text',
          spellcheck: 'false',
          placeholder:
            field.kind === 'selection' ? 'all, group:G, rect:X0,Y0,X1,Y1 or ids 1,2,3' : field.kind === 'area' ? 'x, y, width, height' : 'x, y',
        });
    }
  }

  // Draws the form again (a variant or a group's member changed) and gives `focus` the focus back.
  /** @param {string} focus a selector */
  #rerender(focus) {
    this.#renderForm();
    /** @type {HTMLElement | null} */ (this.form.querySelector(focus))?.focus();
  }

  /** @param {'sent' | 'ack' | 'error' | 'invalid'} kind @param {string} text @param {number | null} seq */
  #setAnswer(kind, text, seq) {
    const answer = this.form.querySelector('#palette-answer');
    if (!answer) return;
    answer.textContent = text;
    answer.setAttribute('data-kind', kind);
    if (seq !== null) answer.setAttribute('data-seq', String(seq));
    else answer.removeAttribute('data-seq');
  }

  // A view-only page: the note says why, and Send is disabled. While picking: what to click.
  #renderNote() {
    const notice = this.pieces.viewOnly() ? this.pieces.notice() : '';
    const send = /** @type {HTMLButtonElement | null} */ (this.form.querySelector('#palette-send'));
    if (send) send.disabled = notice !== '';
    this.root.classList.toggle('view-only', notice !== '');
    if (this.picking) this.note.textContent = `click in the world: ${this.picking.name} (${this.picking.kind}); Esc cancels`;
    else this.note.textContent = notice ? `commands are disabled on this page: ${notice}` : '';
  }

  // ---- picking a field in the world -------------------------------------------------------------

  /** @param {CatalogueField} field */
  #startPicking(field) {
    this.picking = { name: field.name, kind: field.kind };
    document.body.classList.add('palette-picking');
    this.#renderNote();
  }

  #stopPicking() {
    if (!this.picking) return;
    this.picking = null;
    document.body.classList.remove('palette-picking');
    this.#renderNote();
  }

  // Esc: a pick is cancelled first, then the palette closes.
  #escape() {
    if (this.picking) this.#stopPicking();
    else this.close();
  }

  /** @param {MouseEvent} ev */
  #picked(ev) {
    const picking = this.picking;
    if (!picking || !this.state) return;
    const pick = /** @type {(t: PickedThing) => string | null} */ (PICKERS[picking.kind]);
    const text = pick(this.pieces.locate(ev.clientX, ev.clientY));
    if (text === null) {
      this.note.textContent = `no ${picking.kind} there: click on one for ${picking.name}, or Esc`;
      return;
    }
    this.state.texts[picking.name] = text;
    this.edited.add(picking.name);
    this.#stopPicking();
    this.#rerender(`#pf-${picking.name}`);
  }
}

// A field's line of help: what it is, its range, its default, and what a click picks.
/** @param {CatalogueField} field @param {CatalogueCommand} command @param {FormState} state @returns {string} */
function helpText(field, command, state) {
  const parts = [field.help];
  if (command.variants?.field === field.name) {
    const kase = command.variants.cases.find((k) => k.value === state.texts[field.name]);
    if (kase) parts.push(kase.help);
  }
  const range = rangeText(field);
  if (range) parts.push(range);
  if (field.default !== undefined && field.kind !== 'enum' && field.kind !== 'boolean') parts.push(`default ${field.default}`);
  return parts.join(' · ');
}

// Ack ids: a few listed, more as first–last and how many.
/** @param {number[]} ids @returns {string} */
function idsText(ids) {
  if (ids.length <= MAX_AGENTS_SHOWN) return ids.join(', ');
  return `${ids[0]}–${ids[ids.length - 1]} (${ids.length})`;
}
