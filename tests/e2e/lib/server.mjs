// Starts the real herd server binary and learns its port from the line it prints on stdout.

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const SERVER_BIN = process.env.HERD_SERVER || path.join(REPO_ROOT, 'build', 'herd-server');
export const WEB_ROOT = process.env.HERD_WEB_ROOT || path.join(REPO_ROOT, 'clients', 'web');

const LISTENING = /herd: listening on http:\/\/([^/\s]+):(\d+)\//;
const START_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 5_000;

// Resolves to {port, host, httpUrl, wsUrl, runtimeDir, output(), stop()} once the server says it
// listens.
// port 0 lets the OS choose; pass a port to restart a server where a previous one was.
// scenario: a name from server/scenarios; the world starts ticking as soon as the server runs.
// extraArgs: more herd-server flags, e.g. ['--command-token', 'x'].
export function startServer({ port = 0, scenario = 'default', seed = 1, extraArgs = [], openCommands } = {}) {
  if (!existsSync(SERVER_BIN)) {
    return Promise.reject(
      new Error(`herd server not found at ${SERVER_BIN}: build it first, or set HERD_SERVER`),
    );
  }
  // Commands open to any client unless the test gives a token (or asks for the server as a user
  // runs it, openCommands: false: a token made at start); runtime files in a directory of the
  // test's own.
  const args = ['--address', '127.0.0.1', '--port', String(port), '--web-root', WEB_ROOT, '--scenario', scenario, '--seed', String(seed), ...extraArgs];
  const open = openCommands ?? !extraArgs.includes('--command-token');
  const runtimeDir = mkdtempSync(path.join(os.tmpdir(), 'herd-runtime-'));
  const env = { ...process.env, HERD_RUNTIME_DIR: runtimeDir };
  if (open) env.HERD_OPEN_COMMANDS = '1';
  else delete env.HERD_OPEN_COMMANDS;
  const child = spawn(SERVER_BIN, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  let out = '';
  const output = () => out;
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (s) => (out += s));

  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));

  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  };

  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (why) => {
      if (settled) return; // e.g. the exit at the end of a run that started fine
      settled = true;
      clearTimeout(timer);
      stop().finally(() =>
        reject(new Error(`${why}\n$ ${SERVER_BIN} ${args.join(' ')}\n--- server output ---\n${out}`)),
      );
    };
    const timer = setTimeout(
      () => fail(`herd server did not print its listening line within ${START_TIMEOUT_MS} ms`),
      START_TIMEOUT_MS,
    );
    child.once('error', (err) => fail(`cannot start herd server: ${err.message}`));
    exited.then(({ code, signal }) => fail(`herd server exited early (code ${code}, signal ${signal})`));
    child.stdout.on('data', (s) => {
      out += s;
      const m = LISTENING.exec(out);
      if (!m || settled) return;
      settled = true;
      clearTimeout(timer);
      // Keep draining stdout so a chatty server never blocks on a full pipe.
      child.stdout.removeAllListeners('data');
      child.stdout.on('data', (more) => (out += more));
      const host = m[1];
      const p = Number(m[2]);
      resolve({
        host,
        port: p,
        httpUrl: `http://${host}:${p}/`,
        wsUrl: `ws://${host}:${p}/ws`,
        runtimeDir,
        output,
        stop,
        // A signal to the server (SIGKILL: as a crash, its runtime file left behind); resolves
        // once it has exited.
        kill: async (/** @type {NodeJS.Signals} */ signal) => {
          child.kill(signal);
          await exited;
        },
      });
    });
  });
}
