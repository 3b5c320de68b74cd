// @ts-check
// The menu of what can be done to a thing, opened by Alt + right-click (a long press on a touch
// screen; the plain right button orders: input.js): on an agent, with agents selected, what the
// selection can do to it (the behaviours of set_behaviour that name another agent: attack,
// pursue, evade, flee, seek, arrive, react...); on an obstacle, what can be done to it
// (remove_obstacle). Its items are the command catalogue's (command_catalogue.js): a behaviour or
// command added to commands.json is offered here without a line of this file. An item whose
// command needs more than the menu knows (react's radius) opens the command palette's form with
// the rest filled in. The opener may add items of its own first (touch.js: add the agent to the
// selection). Arrows move between items, Enter picks, Esc or a click elsewhere closes.

import { formCommand, menuActions, menuForm } from './command_catalogue.js';

/** @import { FormContext, FormState, MenuAction } from './command_catalogue.js' */
/** @import { Agent, CommandFields, Obstacle, Point } from '../js/src/protocol.js' */

/**
 * An item the opener adds before the catalogue's: its word, its tooltip and what it does.
 * @typedef {{label: string, help: string, run: () => void}} ExtraItem
 */

/**
 * @typedef {object} MenuPieces
 * @property {() => FormContext} context
 * @property {(fields: CommandFields) => number | null} send
 * @property {(cmd: string, form: FormState) => void} openForm the palette's form, filled in
 * @property {() => boolean} viewOnly
 */

const EDGE_PX = 4; // the menu is kept this far inside the window

// The obstacle whose disc, widened by `slack` world units, holds world point w (the nearest
// centre when several do), or null.
/** @param {Obstacle[]} obstacles @param {Point} w @param {number} slack @returns {Obstacle | null} */
export function obstacleAt(obstacles, w, slack) {
  /** @type {Obstacle | null} */
  let best = null;
  let bestD = Infinity;
  for (const o of obstacles) {
    const d = Math.hypot(o.x - w.x, o.y - w.y);
    if (d <= o.r + slack && d < bestD) {
      best = o;
      bestD = d;
    }
  }
  return best;
}

export class ContextMenu {
  /** @param {MenuPieces} pieces */
  constructor(pieces) {
    this.pieces = pieces;
    /** @type {HTMLElement} */
    this.root = /** @type {HTMLElement} */ (document.getElementById('context-menu'));
    this.root.addEventListener('keydown', (ev) => this.#key(ev));
    // A press anywhere else closes it (and does what it does there).
    window.addEventListener(
      'pointerdown',
      (ev) => {
        if (this.isOpen && !this.root.contains(/** @type {Node} */ (ev.target))) this.close();
      },
      true,
    );
    window.addEventListener('blur', () => this.close());
    // Esc with the focus elsewhere closes it too, before the page's own Esc sees the key.
    window.addEventListener(
      'keydown',
      (ev) => {
        if (ev.key !== 'Escape' || !this.isOpen || this.root.contains(/** @type {Node} */ (ev.target))) return;
        this.close();
        ev.stopPropagation();
        ev.preventDefault();
      },
      true,
    );
  }

  get isOpen() {
    return !this.root.hidden;
  }

  // An Alt + right-click or a long press at client point `at` on `agent` or `obstacle` (either may
  // be null): opens the menu and returns true, or returns false when there is nothing to offer
  // (the ground; an agent with nothing selected, or that is itself selected; a view-only page),
  // leaving the click to the right button's move. extra: items of the opener's, shown first.
  /** @param {Point} at @param {{agent: Agent | null, obstacle: Obstacle | null}} under @param {ExtraItem[]} [extra] @returns {boolean} */
  openAt(at, { agent, obstacle }, extra = []) {
    this.close();
    if (this.pieces.viewOnly()) return false;
    const ctx = this.pieces.context();
    /** @type {{kind: 'agent' | 'obstacle', id: number} | null} */
    let target = null;
    if (agent && ctx.selected.length > 0 && !ctx.selected.includes(agent.id)) target = { kind: 'agent', id: agent.id };
    else if (!agent && obstacle) target = { kind: 'obstacle', id: obstacle.id };
    if (!target) return false;
    const actions = menuActions(target.kind);
    if (actions.length === 0) return false;
    const { kind, id } = target;
    const title = kind === 'agent' ? `the selection (${ctx.selected.length}) → agent ${id}` : `obstacle ${id}`;
    const items = [...(kind === 'agent' ? extra.map((e) => this.#extraItem(e)) : []), ...actions.map((a) => this.#item(a, id))];
    this.root.replaceChildren(Object.assign(document.createElement('div'), { className: 'title', textContent: title }), ...items);
    this.root.dataset.target = `${kind}:${id}`;
    this.root.hidden = false;
    // Beside the pointer, inside the window.
    const box = this.root.getBoundingClientRect();
    this.root.style.left = `${Math.max(EDGE_PX, Math.min(at.x, innerWidth - box.width - EDGE_PX))}px`;
    this.root.style.top = `${Math.max(EDGE_PX, Math.min(at.y, innerHeight - box.height - EDGE_PX))}px`;
    items[0].focus();
    return true;
  }

  close() {
    if (!this.isOpen) return;
    this.root.hidden = true;
    if (document.activeElement instanceof HTMLElement && this.root.contains(document.activeElement)) document.activeElement.blur();
  }

  /** @param {ExtraItem} extra */
  #extraItem(extra) {
    const b = document.createElement('button');
    b.type = 'button';
    b.setAttribute('role', 'menuitem');
    b.dataset.action = extra.label;
    b.textContent = extra.label;
    b.title = extra.help;
    b.addEventListener('click', () => {
      this.close();
      extra.run();
    });
    return b;
  }

  /** @param {MenuAction} action @param {number} id */
  #item(action, id) {
    const b = document.createElement('button');
    b.type = 'button';
    b.setAttribute('role', 'menuitem');
    b.dataset.action = action.label;
    const { complete } = menuForm(action, id, this.pieces.context());
    b.textContent = complete ? action.label : `${action.label}…`;
    b.title = complete ? action.help : `${action.help} (opens its form: it needs more)`;
    b.addEventListener('click', () => {
      this.close();
      // Read again at the click: the selection may have changed since the menu opened.
      const now = menuForm(action, id, this.pieces.context());
      const built = formCommand(action.command, now.form);
      if (now.complete && 'fields' in built) this.pieces.send(built.fields);
      else this.pieces.openForm(action.command.cmd, now.form);
    });
    return b;
  }

  /** @param {KeyboardEvent} ev */
  #key(ev) {
    ev.stopPropagation(); // the page's keys (input.js) are not the menu's
    const items = [...this.root.querySelectorAll('button')];
    const at = items.indexOf(/** @type {HTMLButtonElement} */ (document.activeElement));
    /** @type {HTMLButtonElement | undefined} */
    let next;
    if (ev.key === 'ArrowDown') next = items[(at + 1) % items.length];
    else if (ev.key === 'ArrowUp') next = items[(Math.max(0, at) + items.length - 1) % items.length];
    else if (ev.key === 'Home') next = items[0];
    else if (ev.key === 'End') next = items.at(-1);
    else if (ev.key === 'Escape') this.close();
    else return; // Enter and Space press the focused item, Tab moves on
    next?.focus();
    ev.preventDefault();
  }
}
