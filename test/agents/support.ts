// Helpers for agent tests: a fake agent (a shell script that records what it is sent), definitions, event collection.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ApiClient } from '../../src/api/client.js';
import { waitFor, type InProcessServer } from '../api/in-process.js';

/**
 * The fake agent: records its agent id and type, prints READY, then echoes every line it receives (GOT:...) and
 * appends it to $HOME/out-$CASTELLAN_AGENT_ID.txt. A line QUIT ends it; FAIL ends it with code 3.
 */
export function writeFakeAgent(home: string): string {
  const p = join(home, 'fake-agent.sh');
  writeFileSync(
    p,
    [
      '#!/bin/sh',
      'out="$HOME/out-$CASTELLAN_AGENT_ID.txt"',
      'printf "env %s %s\\n" "$CASTELLAN_AGENT_ID" "$CASTELLAN_AGENT_TYPE" >> "$out"',
      'echo READY',
      'while IFS= read -r line; do',
      '  [ "$line" = QUIT ] && exit 0',
      '  [ "$line" = FAIL ] && exit 3',
      '  printf "GOT:%s\\n" "$line"',
      '  printf "%s\\n" "$line" >> "$out"',
      'done',
      '',
    ].join('\n'),
  );
  chmodSync(p, 0o755);
  return p;
}

/** Writes a definition file; `front` is YAML frontmatter (without the --- lines). */
export function writeAgent(dir: string, file: string, front: string, body = ''): string {
  mkdirSync(dir, { recursive: true });
  const p = join(dir, file);
  writeFileSync(p, `---\n${front.trim()}\n---\n${body}`);
  return p;
}

export const outOf = (home: string, agentId: string): string => {
  try {
    return readFileSync(join(home, `out-${agentId}.txt`), 'utf8');
  } catch {
    return '';
  }
};

/** Waits until the fake agent has drawn READY, then says (as its bridge would) that it is idle. */
export async function markReady(srv: InProcessServer, api: ApiClient, pane: string): Promise<void> {
  await waitFor(() => srv.session.readPane(pane, { source: 'all' }).some((l) => l.includes('READY')), { message: `READY in ${pane}` });
  await api.request('pane.report_agent', { pane_id: pane, agent: 'fake', state: 'idle', source: 'hook' });
}

/** Subscribes to events of these types; returns the list they are collected into. */
export async function collectEvents(api: ApiClient, types: string[]): Promise<Array<Record<string, unknown>>> {
  const seen: Array<Record<string, unknown>> = [];
  const id = api.nextId();
  api.onMessage((m) => {
    if (m.id === id && m.event) seen.push(m.event as Record<string, unknown>);
  });
  await api.request('events.subscribe', { types }, { id });
  return seen;
}
