// @ts-check
// A spectator's team view: the whole world, or what one team sees of it, picked in the status
// bar's select (#team-view) over the teams the snapshots hold. A spectator receives every agent
// (late, the same stream whatever it shows); in a team's view the page shows only the agents that
// team sees, worked out as the server works out a player's (fog.js's seenBy, on the snapshot being
// drawn), and that team's fog. Other roles have no team view: the select is hidden.

import { nextTeamView, seenBy, teamsPresent } from './fog.js';

/** @import { Agent } from '../js/src/protocol.js' */

/** @typedef {{field: HTMLElement, select: HTMLSelectElement}} TeamViewUi */

export class TeamView {
  /** @param {TeamViewUi | null} ui the select and the field round it (null: none, in Node) */
  constructor(ui) {
    this.ui = ui;
    /** @type {number | null} */
    this.team = null; // the team shown, null: the whole world
    /** @type {number[]} */
    this.teams = []; // the teams offered
    this.on = false; // a spectator's page: the view can be picked
    this.optionsKey = '';
    /** @type {{agents: readonly Agent[] | null, team: number | null, seen: Set<number>}} */
    this.cache = { agents: null, team: null, seen: new Set() };
    ui?.select.addEventListener('change', () => {
      const v = ui.select.value;
      this.set(v === '' ? null : Number(v));
      ui.select.blur(); // the page's keys work again at once
    });
  }

  // Shows team `team`'s view (null: the whole world).
  /** @param {number | null} team */
  set(team) {
    this.team = this.on ? team : null;
    if (this.ui) this.ui.select.value = this.team === null ? '' : String(this.team);
  }

  // The next view: the whole world, each team present in turn, the whole world again.
  cycle() {
    this.set(nextTeamView(this.team, this.teams));
  }

  // Every frame: whether the page is a spectator's, and the newest snapshot's agents, whose
  // teams are offered (with the one shown, even when none of its agents is left).
  /** @param {boolean} spectator @param {readonly Agent[]} agents */
  update(spectator, agents) {
    if (this.on !== spectator) {
      this.on = spectator;
      if (this.ui) this.ui.field.hidden = !spectator;
      if (!spectator) this.set(null);
    }
    if (!spectator) return;
    const teams = teamsPresent(agents);
    if (this.team !== null && !teams.includes(this.team)) {
      teams.push(this.team);
      teams.sort((p, q) => p - q);
    }
    this.teams = teams;
    const key = teams.join();
    if (key === this.optionsKey || !this.ui) return;
    this.optionsKey = key;
    const select = this.ui.select;
    select.replaceChildren(option('', 'whole world'), ...teams.map((t) => option(String(t), `team ${t}`)));
    select.value = this.team === null ? '' : String(this.team);
  }

  // The ids the team shown sees in `agents` (a snapshot's, as the server sent it), or null in the
  // whole world's view. Worked out once a snapshot and team.
  /** @param {readonly Agent[]} agents @returns {Set<number> | null} */
  seen(agents) {
    if (this.team === null) return null;
    const c = this.cache;
    if (c.agents !== agents || c.team !== this.team) {
      this.cache = { agents, team: this.team, seen: seenBy(agents, this.team) };
    }
    return this.cache.seen;
  }

  // The agents of `drawn` (interpolated) the view shows: those `snapshot`'s agents (the snapshot
  // drawn) seen by the team shown; every one in the whole world's view.
  /** @param {Agent[]} drawn @param {readonly Agent[]} snapshot @returns {Agent[]} */
  filter(drawn, snapshot) {
    const seen = this.seen(snapshot);
    return seen ? drawn.filter((a) => seen.has(a.id)) : drawn;
  }
}

/** @param {string} value @param {string} label */
function option(value, label) {
  const o = document.createElement('option');
  o.value = value;
  o.textContent = label;
  return o;
}
