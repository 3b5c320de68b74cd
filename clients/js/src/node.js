// @ts-check
// herd-client in Node ('herd-client/node'): everything the package exports, with a connect() that
// takes Node's defaults. The WebSocket: the one given, else Node's own (22 and later), else the
// `ws` package's (Node 20 has none of its own). The command token, when a commander is given
// none: the URL's #token=, else $HERD_COMMAND_TOKEN, else, for a ws:// URL, the one the server
// on that port left for its user (protocol/PROTOCOL.md, "Local clients find the token"), as
// herd-ctl and the Python client find it: only while that server runs, and only for the exact
// addresses its file names (a URL naming localhost is sent to the file's address instead:
// localhost may resolve to ::1 where the server holds only 127.0.0.1).

import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import { isIPv4, isIPv6 } from 'node:net';
import path from 'node:path';

import { parseUrl } from './address.js';
import { connect as connectWith } from './client.js';

/** @import { Client, ConnectOptions } from './client.js' */
/** @import { Address } from './address.js' */
/** @import { WebSocketConstructor } from './connection.js' */

export * from './index.js';

export const DEFAULT_URL = 'ws://localhost:8080/ws';
const MAX_TOKEN_BYTES = 256;
const MAX_RUNTIME_FILE_BYTES = 64 * 1024;

/**
 * Connects as the package's connect() does, with Node's defaults for `WebSocket` and `token`.
 * @param {string} [url] default ws://localhost:8080/ws
 * @param {ConnectOptions} [options]
 * @returns {Promise<Client>}
 */
export async function connect(url = DEFAULT_URL, options = {}) {
  const WebSocket = options.WebSocket ?? globalThis.WebSocket ?? (await loadWs());
  const role = options.role ?? 'commander';
  if (options.token === undefined && (role === 'commander' || role === 'operator')) {
    const found = withToken(parseUrl(url));
    return connectWith(found.url, { ...options, WebSocket, token: found.token });
  }
  return connectWith(url, { ...options, WebSocket, token: options.token ?? '' });
}

/** @returns {Promise<WebSocketConstructor>} */
async function loadWs() {
  try {
    const ws = await import('ws');
    return /** @type {WebSocketConstructor} */ (/** @type {unknown} */ (ws.WebSocket));
  } catch (err) {
    throw new TypeError("herd-client/node needs a WebSocket: Node 20 has none, so install the 'ws' package (npm install ws) or pass options.WebSocket", { cause: err });
  }
}

// The directory where servers leave their runtime files, or '' when no variable says.
export function runtimeDir() {
  const env = process.env;
  if (env.HERD_RUNTIME_DIR) return env.HERD_RUNTIME_DIR;
  if (env.XDG_RUNTIME_DIR) return path.join(env.XDG_RUNTIME_DIR, 'herd');
  if (env.HOME) return path.join(env.HOME, '.local', 'share', 'herd', 'runtime');
  return '';
}

/**
 * @param {string} a
 * @param {string} b
 * @returns {boolean} whether both are literal IP addresses, the same one
 */
function sameAddress(a, b) {
  if (isIPv4(a)) return isIPv4(b) && a.split('.').map(Number).join('.') === b.split('.').map(Number).join('.');
  if (!isIPv6(a) || !isIPv6(b)) return false;
  return expandIPv6(a) === expandIPv6(b);
}

/**
 * @param {string} a an IPv6 address
 * @returns {string} its eight groups, each as a number, joined
 */
function expandIPv6(a) {
  let text = a.toLowerCase();
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const [p, q, r, t] = v4[1].split('.').map(Number);
    text = text.slice(0, -v4[1].length) + ((p << 8) | q).toString(16) + ':' + ((r << 8) | t).toString(16);
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return groups.map((g) => parseInt(g, 16)).join(':');
}

/** @param {unknown} pid */
function processAlive(pid) {
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false; // gone (ESRCH), or another user's (EPERM): not our server
  }
}

/**
 * The token a server on this machine at `port` left for its user's clients, and the address to
 * reach it at, for a client whose URL names `host`: only from a regular file of this user's whose
 * server still runs, only for an address the file names, or localhost (then the file's first
 * address). null when there is none.
 * @param {string} host
 * @param {number} port
 * @returns {{ token: string, host: string } | null}
 */
export function localToken(host, port) {
  const dir = runtimeDir();
  if (!dir) return null;
  let fd;
  try {
    fd = openSync(path.join(dir, `server-${port}.json`), constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.uid !== process.geteuid?.() || st.size >= MAX_RUNTIME_FILE_BYTES) return null;
    const file = JSON.parse(readFileSync(fd, 'utf8'));
    const token = file?.token;
    const addresses = file?.addresses;
    if (typeof token !== 'string' || !token || Buffer.byteLength(token) > MAX_TOKEN_BYTES) return null;
    if (file.port !== port || !processAlive(file.pid) || !Array.isArray(addresses) || addresses.length === 0) return null;
    if (host === 'localhost') {
      const first = addresses[0];
      return typeof first === 'string' && sameAddress(first, first) ? { token, host: first } : null;
    }
    return addresses.some((a) => typeof a === 'string' && sameAddress(host, a)) ? { token, host } : null;
  } catch {
    return null; // unreadable, or not JSON: as if there were none
  } finally {
    closeSync(fd);
  }
}

/**
 * The URL to connect to and the token to say hello with when none is given (see the top of this
 * file): a runtime file's token comes with the exact address it is for.
 * @param {Address} address
 * @returns {{ url: string, token: string }}
 */
export function withToken(address) {
  if (address.token) return { url: address.url, token: address.token };
  if (process.env.HERD_COMMAND_TOKEN) return { url: address.url, token: process.env.HERD_COMMAND_TOKEN };
  if (address.tls) return { url: address.url, token: '' };
  const local = localToken(address.host, address.port);
  if (!local) return { url: address.url, token: '' };
  if (local.host === address.host) return { url: address.url, token: local.token };
  const u = new URL(address.url);
  u.hostname = local.host.includes(':') ? `[${local.host}]` : local.host;
  return { url: u.toString(), token: local.token };
}

/**
 * The token to say hello with when none is given, for this very address: '' where a runtime
 * file's token is for another (localhost: see withToken).
 * @param {Address} address
 * @returns {string}
 */
export function findToken(address) {
  const found = withToken(address);
  return found.url === address.url ? found.token : '';
}
