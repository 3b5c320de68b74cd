// @ts-check
// The errors the client rejects with. Every one is a HerdError whose `code` is a string: the
// server's error code (protocol/PROTOCOL.md, "Error codes") for a ServerError and its kinds, and
// one of this package's own for what happens on this side ('connect_failed',
// 'connection_closed', 'timeout', 'decode_error').

/** @import { ErrorMessage } from './protocol.js' */

export class HerdError extends Error {
  /**
   * @param {string} code
   * @param {string} message
   * @param {ErrorOptions} [options]
   */
  constructor(code, message, options) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

// The server answered with an `error` message: `code` is the protocol's ('unknown_agent',
// 'rate_limited', ...), `serverMessage` its sentence for people, `reply` the whole message.
export class ServerError extends HerdError {
  /**
   * @param {ErrorMessage} reply
   * @param {string} [what] the request it answers, for the message
   */
  constructor(reply, what = '') {
    super(reply.code, `${what ? what + ': ' : ''}${reply.code}: ${reply.message}`);
    this.reply = reply;
    this.serverMessage = reply.message;
    /** @type {number | undefined} */
    this.seq = reply.seq;
  }
}

// A command was refused: the world is unchanged (a command applies whole or not at all). `cmd` is
// its name and `fields` what was sent with it.
export class CommandError extends ServerError {
  /**
   * @param {ErrorMessage} reply
   * @param {string} cmd
   * @param {Record<string, unknown>} fields
   */
  constructor(reply, cmd, fields) {
    super(reply, cmd);
    this.cmd = cmd;
    this.fields = fields;
  }
}

// The server refused the hello: 'unauthorized' (a commander without the server's token; it would
// have let the session watch: connect with role 'viewer' for that), 'protocol_mismatch', ...
export class HelloError extends ServerError {}

// The server could not be reached, or refused the WebSocket upgrade (an HTTP 403 for a refused
// Origin or Host, 503 over a connection cap).
export class ConnectError extends HerdError {
  /** @param {string} message @param {ErrorOptions} [options] */
  constructor(message, options) {
    super('connect_failed', message, options);
  }
}

// The connection is closed: by the server (`closeCode` and `reason` say why: 4000 for a kick,
// 1001 when the server shuts down) or by this client's close().
export class ConnectionClosed extends HerdError {
  /**
   * @param {number | null} closeCode
   * @param {string} [reason]
   * @param {string} [what] the request that cannot be answered, for the message
   */
  constructor(closeCode, reason = '', what = '') {
    let text = 'the connection is closed';
    if (closeCode !== null) text += ` (code ${closeCode}${reason ? ': ' + reason : ''})`;
    super('connection_closed', what ? `${what}: ${text}` : text);
    this.closeCode = closeCode;
    this.reason = reason;
  }
}

// Nothing came within the time allowed.
export class TimeoutError extends HerdError {
  /** @param {string} message */
  constructor(message) {
    super('timeout', message);
  }
}

// A binary snapshot frame that cannot be decoded: truncated, corrupt, or without the baseline it
// is built on.
export class DecodeError extends HerdError {
  /** @param {string} message @param {ErrorOptions} [options] */
  constructor(message, options) {
    super('decode_error', message, options);
  }
}
