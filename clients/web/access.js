// @ts-check
// Whether this page may command, and the one line that says why not. The page always says hello
// as commander, with the token of its URL's #token= when it has one: the server decides. An open
// server (one started with --open-commands) welcomes it as commander even without a
// token; a server with a command token answers a hello without it, or with a wrong one, with the
// error `unauthorized` and welcomes it as viewer (PROTOCOL.md, "hello"). So the welcome's role
// decides, never the presence of a token alone: a viewer sends nothing the server would refuse
// with `forbidden`, and the page says why once (the scenario bar's note), not in a toast per key.
// Pure: no DOM (web_modules.test.mjs runs it in Node).

export const VIEW_ONLY_NO_TOKEN = 'view only: to command, open the link with #token=… that herd-server printed';
export const VIEW_ONLY_TOKEN_REFUSED =
  'view only: the token in the URL was refused; to command, open the link with #token=… that herd-server printed';

// What the page says about commanding for a welcome's role: '' when it may command, else the
// view-only notice. tokenGiven: the page said hello with a token (from its URL), which the
// server did not take when it welcomed the page as anything but commander.
/** @param {string} role @param {boolean} tokenGiven @returns {string} */
export function commandNotice(role, tokenGiven) {
  if (role === 'commander') return '';
  return tokenGiven ? VIEW_ONLY_TOKEN_REFUSED : VIEW_ONLY_NO_TOKEN;
}

// The error that answers a hello as commander without the server's token (or with a wrong one):
// no seq, code `unauthorized`. The welcome that follows says viewer, and the notice says why.
/** @param {{code: string, seq?: number}} error @returns {boolean} */
export function isHelloRefusal(error) {
  return error.code === 'unauthorized' && error.seq === undefined;
}
