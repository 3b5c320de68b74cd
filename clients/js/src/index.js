// @ts-check
// herd-client: a client of the herd server's WebSocket protocol (protocol/PROTOCOL.md), for the
// browser and Node alike (in Node 20, pass the `ws` package's WebSocket, or import
// 'herd-client/node', which does and finds the command token as herd-ctl does).

export { connect, Client, DEFAULT_TIMEOUT_MS, DEFAULT_QUEUE } from './client.js';
export { Commands, COMMANDS, CATALOGUE, commandsFrom, commandFields, converter, group, team, rect, point, selection } from './commands.js';
export { Connection, CLIENT_NAME } from './connection.js';
export { SnapshotStream } from './stream.js';
export { BinaryFeed, decodeBinary, readHeader, dequantise, toSnapshot, MAX_SCALE, POSITION_SCALE, SPEED_SCALE, RADIUS_SCALE } from './binary.js';
export { PROTOCOL_VERSION, ROLES, FORMATS, QUANTA, DEFAULT_QUANTUM, checkQuantum, makeHello } from './protocol.js';
export { parseUrl } from './address.js';
export { HerdError, ServerError, CommandError, HelloError, ConnectError, ConnectionClosed, TimeoutError, DecodeError } from './errors.js';
