// Players and spectators in the viewer's pure modules: the role the page says hello as from its
// URL's fragment (access.js's pageRole), what it says about commanding for each welcome, the
// status line's who-am-I (hud.js's whoLine), a spectator's team view (team_view.js) and the
// session's notices on fakes of the page. tests/e2e/players.test.mjs shows them against the server.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import {
  PLAYER_BAR_NOTE,
  VIEW_ONLY_NO_TOKEN,
  VIEW_ONLY_PLAYER_NO_TOKEN,
  VIEW_ONLY_PLAYER_REFUSED,
  VIEW_ONLY_SPECTATOR,
  VIEW_ONLY_TOKEN_REFUSED,
  barNotice,
  commandNotice,
  pageRole,
} from '../../clients/web/access.js';
import { whoLine } from '../../clients/web/hud.js';
import { TeamView } from '../../clients/web/team_view.js';
import { Session } from '../../clients/web/session.js';
import { newViewerState } from '../../clients/web/viewer_state.js';

const params = (/** @type {string} */ hash) => new URLSearchParams(hash.slice(1));

describe('pageRole', () => {
  it('says hello as the fragment asks: a player with its token, a spectator with none, else the operator as commander', () => {
    assert.deepEqual(pageRole(params('#role=player&token=red-token-0123456789')), { role: 'player', token: 'red-token-0123456789' });
    assert.deepEqual(pageRole(params('#role=spectator&token=ignored')), { role: 'spectator', token: '' });
    assert.deepEqual(pageRole(params('#role=operator&token=op')), { role: 'commander', token: 'op' });
    assert.deepEqual(pageRole(params('#token=op&debug')), { role: 'commander', token: 'op' }, "today's links");
    assert.deepEqual(pageRole(params('')), { role: 'commander', token: '' });
    assert.deepEqual(pageRole(params('#role=king&token=x')), { role: 'commander', token: 'x' }, 'an unknown role is the default');
    assert.deepEqual(pageRole(params('#role=player')), { role: 'player', token: '' });
  });
});

describe('commandNotice and barNotice for players and spectators', () => {
  it('lets the operator and a player command; a spectator or a refused player only watches, and is told why', () => {
    for (const role of ['commander', 'operator', 'player']) assert.equal(commandNotice(role, true, role === 'player' ? 'player' : 'commander'), '', role);
    assert.equal(commandNotice('spectator', false, 'spectator'), VIEW_ONLY_SPECTATOR);
    assert.equal(commandNotice('spectator', true, 'player'), VIEW_ONLY_PLAYER_REFUSED);
    assert.equal(commandNotice('spectator', false, 'player'), VIEW_ONLY_PLAYER_NO_TOKEN);
    // A page that asked as commander on a server with players, without the token: as before.
    assert.equal(commandNotice('spectator', false), VIEW_ONLY_NO_TOKEN);
    assert.equal(commandNotice('spectator', true, 'commander'), VIEW_ONLY_TOKEN_REFUSED);
    for (const n of [VIEW_ONLY_SPECTATOR, VIEW_ONLY_PLAYER_REFUSED, VIEW_ONLY_PLAYER_NO_TOKEN]) assert.match(n, /^view only: /);
    // The scenario bar: the world's controls are the operator's.
    assert.equal(barNotice('player', ''), PLAYER_BAR_NOTE);
    assert.equal(barNotice('commander', ''), '');
    assert.equal(barNotice('spectator', VIEW_ONLY_SPECTATOR), VIEW_ONLY_SPECTATOR);
    assert.equal(barNotice(undefined, ''), '');
  });

  it("a session welcomed as a player sends commands; the bar's note says the world's controls are not its", () => {
    const sent = /** @type {object[]} */ ([]);
    const notes = /** @type {string[]} */ ([]);
    const noop = () => {};
    const conn = { state: 'connected', generation: 1, hasToken: true, hello: { role: 'player' }, snapshotFormat: 'json', send: (/** @type {object} */ m) => (sent.push(m), true) };
    const session = new Session(
      /** @type {any} */ ({
        conn,
        state: newViewerState(),
        view: { setWorld: noop, setMap: noop },
        hud: { toast: noop },
        interp: { reset: noop },
        stats: { reset: noop, message: noop },
        inspector: { sessionStarted: noop },
        painter: { on: false, reset: noop, setOn: noop, refused: noop },
        bar: { update: (/** @type {{notice: string}} */ u) => notes.push(u.notice), flashNote: noop },
        heat: { welcomed: noop, receive: noop },
      }),
    );
    session.handleMessage(
      /** @type {any} */ ({ type: 'welcome', role: 'player', player: 'red', team: 1, tick: 0, tick_rate: 60, snapshot_rate: 20, world: { width: 800, height: 600 } }),
    );
    assert.equal(session.viewOnly, false);
    assert.notEqual(session.sendCommand({ cmd: 'stop', agents: [1] }), null);
    assert.equal(sent.length, 1);
    assert.equal(notes.at(-1), PLAYER_BAR_NOTE);
    // The same page refused (a wrong token): welcomed as a spectator, it sends nothing.
    conn.generation = 2;
    session.handleMessage(/** @type {any} */ ({ type: 'welcome', role: 'spectator', tick: 0, tick_rate: 60, snapshot_rate: 20, world: { width: 800, height: 600 } }));
    assert.equal(session.viewOnly, true);
    assert.equal(session.sendCommand({ cmd: 'stop', agents: [1] }), null);
    assert.equal(sent.length, 1);
    assert.equal(notes.at(-1), VIEW_ONLY_PLAYER_REFUSED);
  });
});

describe('whoLine', () => {
  it('names a player and its team, a spectator and the view it shows, and nobody else', () => {
    assert.equal(whoLine({ role: 'player', player: 'red', team: 1 }, null), 'player red · team 1');
    assert.equal(whoLine({ role: 'spectator' }, null), 'spectator · whole world');
    assert.equal(whoLine({ role: 'spectator' }, 3), "spectator · team 3's view");
    assert.equal(whoLine({ role: 'commander' }, null), '');
    assert.equal(whoLine({ role: 'viewer' }, null), '');
    assert.equal(whoLine(null, null), '');
  });
});

describe('TeamView', () => {
  const agent = (/** @type {number} */ id, /** @type {number} */ x, /** @type {number} */ team) => ({ id, x, y: 0, vx: 0, vy: 0, r: 8, group: 0, state: 'idle', team });
  const snapshot = [agent(1, 0, 1), agent(2, 150, 2), agent(3, 1000, 2), agent(4, 5000, 0)];

  it("offers the teams present to a spectator only, cycles through them, and shows what the team shown sees", () => {
    const v = new TeamView(null);
    v.update(false, snapshot);
    v.cycle();
    assert.equal(v.team, null, 'no team view but for a spectator');
    v.update(true, snapshot);
    assert.deepEqual(v.teams, [1, 2]);
    assert.deepEqual(v.filter(snapshot, snapshot), snapshot, 'the whole world');
    v.cycle();
    assert.equal(v.team, 1);
    assert.deepEqual(v.filter(snapshot, snapshot).map((a) => a.id), [1, 2]);
    // The agents drawn (interpolated copies) are filtered by the snapshot's ids.
    assert.deepEqual(v.filter(snapshot.map((a) => ({ ...a, x: a.x + 1 })), snapshot).map((a) => a.id), [1, 2]);
    v.cycle();
    assert.equal(v.team, 2);
    assert.deepEqual(v.filter(snapshot, snapshot).map((a) => a.id), [1, 2, 3]);
    assert.equal(v.seen(snapshot)?.size, 3);
    v.cycle();
    assert.equal(v.team, null);
    // A team whose agents are all gone stays offered while it is shown; a page no longer a
    // spectator's goes back to the whole world.
    v.set(2);
    v.update(true, [agent(1, 0, 1)]);
    assert.deepEqual(v.teams, [1, 2]);
    v.update(false, snapshot);
    assert.equal(v.team, null);
  });
});
