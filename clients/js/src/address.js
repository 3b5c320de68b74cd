// @ts-check
// Where the server is. A URL is ws://HOST[:PORT][/PATH] or wss://... (path /ws when none is
// given, as herd-ctl's), or the viewer's URL the server prints, http://HOST:PORT/#token=..., whose
// page is not the WebSocket and whose fragment carries the command token.

/**
 * A parsed server URL.
 * @typedef {object} Address
 * @property {string} url the WebSocket URL to connect to
 * @property {string} host without brackets
 * @property {number} port
 * @property {boolean} tls
 * @property {string} token from an http(s) URL's #token= fragment ('' for none)
 */

/**
 * Parses a server URL; throws a TypeError saying what is wrong with it.
 * @param {string} url
 * @returns {Address}
 */
export function parseUrl(url) {
  if (typeof url !== 'string') throw new TypeError(`the URL must be a string, not ${JSON.stringify(url)}`);
  let u;
  try {
    u = new URL(url.trim());
  } catch {
    throw new TypeError(`the URL must look like ws://HOST:PORT/ws, not ${JSON.stringify(url)}`);
  }
  const scheme = u.protocol.slice(0, -1);
  if (!['ws', 'wss', 'http', 'https'].includes(scheme)) {
    throw new TypeError(`the URL must look like ws://HOST:PORT/ws, not ${JSON.stringify(url)}`);
  }
  if (!u.hostname) throw new TypeError(`the URL names no host: ${JSON.stringify(url)}`);
  const tls = scheme === 'wss' || scheme === 'https';
  const port = u.port ? Number(u.port) : tls ? 443 : 80;
  let token = '';
  let path = u.pathname === '/' ? '/ws' : u.pathname + u.search;
  if (scheme === 'http' || scheme === 'https') {
    path = '/ws';
    token = new URLSearchParams(u.hash.slice(1)).get('token') ?? '';
  }
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
  return { url: `${tls ? 'wss' : 'ws'}://${u.hostname}:${port}${path}`, host, port, tls, token };
}
