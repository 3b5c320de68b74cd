// The operator's monitor's pure part (clients/web/monitor_format.js), in Node: what the page says
// when it may not show the monitor, and a `sessions` row as the table's cells, from the very
// example the protocol's tests pin (protocol/fixtures/server/sessions.json). The end-to-end test
// (tests/e2e/monitor.test.mjs) shows the page itself working.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import {
  MONITOR_NO_TOKEN,
  MONITOR_TOKEN_REFUSED,
  SESSION_COLUMNS,
  formatAge,
  formatBytes,
  monitorNotice,
  sessionCells,
} from '../../clients/web/monitor_format.js';

const fixture = JSON.parse(readFileSync(new URL('../../protocol/fixtures/server/sessions.json', import.meta.url), 'utf8'));

describe('the monitor', () => {
  it('shows itself to a commander only, and says why not to anyone else', () => {
    assert.equal(monitorNotice('commander', true), '');
    assert.equal(monitorNotice('commander', false), '', 'an open server: no token needed');
    assert.equal(monitorNotice('viewer', false), MONITOR_NO_TOKEN);
    assert.equal(monitorNotice('viewer', true), MONITOR_TOKEN_REFUSED);
    for (const text of [MONITOR_NO_TOKEN, MONITOR_TOKEN_REFUSED]) assert.match(text, /\/monitor#token=…$/);
  });

  it('writes bytes and ages as people read them', () => {
    assert.equal(formatBytes(0), '0 B');
    assert.equal(formatBytes(999), '999 B');
    assert.equal(formatBytes(1187), '1.2 kB');
    assert.equal(formatBytes(2915804), '2.9 MB');
    assert.equal(formatBytes(-1), '–');
    assert.equal(formatAge(0.021), '0 s');
    assert.equal(formatAge(84.25), '1 min 24 s');
    assert.equal(formatAge(3605), '1 h 00 min');
    assert.equal(formatAge(NaN), '–');
  });

  it("turns each row of the server's answer into its cells, a dash for what is not known yet", () => {
    const [viewer, fresh, self] = fixture.sessions.map(sessionCells);
    assert.deepEqual(viewer, {
      id: '1',
      role: 'viewer',
      player: '–',
      client: 'herd-web/1',
      address: '127.0.0.1:53012',
      format: 'auto',
      connected: '1 min 24 s',
      sent: '2.9 MB',
      snapshots: '2520',
      dropped: '3',
      rtt: '0.412 ms',
    });
    assert.deepEqual([fresh.role, fresh.client, fresh.format, fresh.rtt], ['–', '–', '–', '–']);
    assert.equal(self.role, 'commander');
    assert.deepEqual(Object.keys(viewer), SESSION_COLUMNS.map(([key]) => key), 'a cell per column, in order');
  });

  it("names a player's session by its player and team", () => {
    const cells = sessionCells({ ...fixture.sessions[0], role: 'player', player: 'red', team: 1 });
    assert.equal(cells.player, 'red (team 1)');
    assert.equal(cells.role, 'player');
  });
});
