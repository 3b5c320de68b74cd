// @ts-check
// Whether this page may command, and the one line that says why not. The page says hello as its
// URL's #role= asks (pageRole below): by default as commander, with the token of its URL's
// #token= when it has one: the server decides. An open
// server (one started with --open-commands) welcomes it as commander even without a
// token; a server with a command token answers a hello without it, or with a wrong one, with the
// error `unauthorized` and welcomes it as viewer (PROTOCOL.md, "hello"). So the welcome's role
// decides, never the presence of a token alone: a viewer sends nothing the server would refuse
// with `forbidden`, and the page says why once (the scenario bar's note), not in a toast per key.
// Pure: no DOM (web_modules.test.mjs runs it in Node).

export const VIEW_ONLY_NO_TOKEN = 'view only: to command, open the link with #token=… that herd-server printed';
export const VIEW_ONLY_TOKEN_REFUSED =
  'view only: the token in the URL was refused; to command, open the link with #token=… that herd-server printed';

// The welcome's roles that command: the operator (welcomed as `commander` when it said hello so,
// as this page does, or `operator`) and a player, whose commands act on its team's agents only
// (the server refuses the others' with `not_yours`).
const COMMANDING_ROLES = new Set(['commander', 'operator', 'player']);

// What the page says about commanding for a welcome's role: '' when it may command, else the
// view-only notice. tokenGiven: the page said hello with a token (from its URL), which the
// server did not take when it welcomed the page as anything but a role that commands. asked: the
// role the page said hello as (pageRole): a player's token refused, or a spectator, is said so.
/** @param {string} role @param {boolean} tokenGiven @param {string} [asked] @returns {string} */
export function commandNotice(role, tokenGiven, asked = 'commander') {
  if (COMMANDING_ROLES.has(role)) return '';
  if (asked === 'spectator') return VIEW_ONLY_SPECTATOR;
  if (asked === 'player') return tokenGiven ? VIEW_ONLY_PLAYER_REFUSED : VIEW_ONLY_PLAYER_NO_TOKEN;
  return tokenGiven ? VIEW_ONLY_TOKEN_REFUSED : VIEW_ONLY_NO_TOKEN;
}

export const VIEW_ONLY_SPECTATOR = 'view only: a spectator watches the world some seconds late and commands nothing';
export const VIEW_ONLY_PLAYER_NO_TOKEN = "view only: a player needs its token: open the link with #role=player&token=… you were given";
export const VIEW_ONLY_PLAYER_REFUSED =
  "view only: the player's token in the URL was refused; to play, open the link with #role=player&token=… you were given";

// A player commands its team's agents, not the world: the scenario bar's controls (pause, step,
// reset, scenarios, rates: the operator's, `forbidden` to a player) are disabled, with this note.
export const PLAYER_BAR_NOTE = "a player commands its team's agents: the world's controls are the operator's";

// The scenario bar's note for a welcome's role and the page's command notice (commandNotice).
/** @param {string | undefined} role @param {string} notice @returns {string} */
export function barNotice(role, notice) {
  return notice || (role === 'player' ? PLAYER_BAR_NOTE : '');
}

/** @typedef {'commander' | 'player' | 'spectator'} PageRole */

// The role the page says hello as, and the token it gives, from its URL's fragment (never sent to
// the server or a proxy): '#role=player&token=T' a player, T its token; '#role=spectator' a
// spectator (no token: it needs none); '#role=operator', any other role or none, the operator,
// said as `commander` (which every server takes) with '#token=' as its token.
/** @param {URLSearchParams} params @returns {{role: PageRole, token: string}} */
export function pageRole(params) {
  const asked = params.get('role');
  const token = params.get('token') ?? '';
  if (asked === 'player') return { role: 'player', token };
  if (asked === 'spectator') return { role: 'spectator', token: '' };
  return { role: 'commander', token };
}

// The error that answers a hello as commander without the server's token (or with a wrong one):
// no seq, code `unauthorized`. The welcome that follows says viewer, and the notice says why.
/** @param {{code: string, seq?: number}} error @returns {boolean} */
export function isHelloRefusal(error) {
  return error.code === 'unauthorized' && error.seq === undefined;
}
