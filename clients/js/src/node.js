// @ts-check
// herd-client in Node ('herd-client/node'): everything the package exports, with a connect() that
// takes Node's defaults. The WebSocket: the one given, else Node's own (22 and later), else the
// `ws` package's (Node 20 has none of its own). The command token, when a commander is given
// none: the URL's #token=, else $HERD_COMMAND_TOKEN, else, for a ws:// URL of a loopback host,
// the one the server on that port left for its user (protocol/PROTOCOL.md, "Local clients find
// the token"), as herd-ctl and the Python client find it.

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
  const token = options.token ?? (role === 'commander' || role === 'operator' ? findToken(parseUrl(url)) : '');
  return connectWith(url, { ...options, WebSocket, token });
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

/** @param {string} host */
function isLoopback(host) {
  if (host === 'localhost') return true;
  if (isIPv4(host)) return host.startsWith('127.');
  if (isIPv6(host)) return host === '::1' || /^::ffff:127\./i.test(host);
  return false;
}

/**
 * The token a server on this machine at `port` left for its user's clients, for a client whose URL
 * names `host`: only a loopback host, only from a regular file of this user's. '' when there is none.
 * @param {string} host
 * @param {number} port
 * @returns {string}
 */
export function localToken(host, port) {
  const dir = runtimeDir();
  if (!isLoopback(host) || !dir) return '';
  let fd;
  try {
    fd = openSync(path.join(dir, `server-${port}.json`), constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return '';
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.uid !== process.geteuid?.() || st.size >= MAX_RUNTIME_FILE_BYTES) return '';
    const token = JSON.parse(readFileSync(fd, 'utf8'))?.token;
    if (typeof token !== 'string' || Buffer.byteLength(token) > MAX_TOKEN_BYTES) return '';
    return token;
  } catch {
    return ''; // unreadable, or not JSON: as if there were none
  } finally {
    closeSync(fd);
  }
}

/**
 * The token to say hello with when none is given (see the top of this file).
 * @param {Address} address
 * @returns {string}
 */
export function findToken(address) {
  if (address.token) return address.token;
  if (process.env.HERD_COMMAND_TOKEN) return process.env.HERD_COMMAND_TOKEN;
  if (address.tls) return '';
  return localToken(address.host, address.port);
}
