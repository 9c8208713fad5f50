// What a pane's program inherits from the server: not another multiplexer's markers, not an agent identity the server
// itself inherited (a server started from an agent's pane); agent.start's own identity (extra) does reach it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { paneEnv } from '../../src/platform/env.js';

test('paneEnv drops an inherited agent identity and other multiplexers\' markers; extra (agent.start) is kept', () => {
  const base = { PATH: '/bin', TMUX: '/tmp/tmux-0/default,1,0', CASTELLAN_AGENT_ID: 'cl-old', CASTELLAN_AGENT_TYPE: 'claude', CASTELLAN_SERVER: '1' };
  const plain = paneEnv({ base, socket: '/s', paneId: 'w1:p1', session: 'default' });
  assert.equal(plain.PATH, '/bin');
  for (const k of ['TMUX', 'CASTELLAN_AGENT_ID', 'CASTELLAN_AGENT_TYPE', 'CASTELLAN_SERVER']) assert.equal(plain[k], undefined, k);
  assert.equal(plain.CASTELLAN_PANE_ID, 'w1:p1');
  const agent = paneEnv({ base, socket: '/s', paneId: 'w1:p2', session: 'default', extra: { CASTELLAN_AGENT_ID: 'cl-new', CASTELLAN_AGENT_TYPE: 'codex' } });
  assert.equal(agent.CASTELLAN_AGENT_ID, 'cl-new');
  assert.equal(agent.CASTELLAN_AGENT_TYPE, 'codex');
});
