import { test } from 'node:test';
import { GENERIC_AGENT } from '../../src/detect/rules.js';
import { loadStream, replay } from './stream-support.js';
import { score, flicker } from '../../scripts/badge-score.js';
test('dbg', async () => {
  for (const agent of ['claude']) {
    const s = loadStream(`${agent}.jsonl.gz`);
    const r = await replay({ ...s, meta: { ...s.meta, agent: GENERIC_AGENT } });
    console.log(agent, score(r.marks, r.events).map((l) => `${l.transition}=${l.ms}`).join('  '));
    console.log(r.marks.map((m) => `${m.t}:${m.step}:${m.want}`).join(' '));
    console.log(r.events.map((e) => `${e.ts}:${e.new}`).join(' '));
    console.log(flicker(r.marks, r.events, r.end));
  }
});
