// pi's hooks land late (its extension does not wait for them): a late "working" that arrives after a key at pi's gate,
// while the dialog still shows, is dropped; the screen shows what the key did. Replay of the recorded pi-hooks stream
// with that report moved to where it landed in the live runs (the tool_call hook 160 ms after the Esc).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadStream, replay, type Stream } from './stream-support.js';

/** pi-hooks with the reject step's tool_call report landing `afterEsc` ms after the Esc that rejected the tool. */
function withLateToolCall(afterEsc: number): { stream: Stream; esc: number } {
  const s = loadStream('pi-hooks.jsonl.gz');
  const esc = s.recs.find((r) => 'mark' in r && r.mark.transition === 'reject→rest')!.t;
  const dialog = s.recs.find((r) => 'mark' in r && r.mark.step === 'reject' && r.mark.transition.startsWith('dialog'))!.t;
  const hook = s.recs.find((r) => 'hook' in r && r.hook === 'tool_call' && r.t > dialog);
  assert.ok(hook, 'the reject step has a tool_call report');
  const recs = s.recs.map((r) => (r === hook ? { ...r, t: esc + afterEsc } : r)).sort((a, b) => a.t - b.t);
  return { stream: { ...s, recs }, esc };
}

test('pi: a late hook "working" after an Esc at its gate, with the dialog still drawn, does not flicker the badge', async (t) => {
  const { stream, esc } = withLateToolCall(160);
  const r = await replay(stream, { hooks: true });
  const after = r.events.filter((e) => e.ts >= esc && e.ts < esc + 3000);
  for (const e of after) t.diagnostic(`+${e.ts - esc} ms: ${e.old}→${e.new} (${e.source})`);
  assert.deepEqual(after.filter((e) => e.source === 'hook' && e.new === 'working').map((e) => `+${e.ts - esc} ms`), [], 'no hook "working" after the rejection');
  // and the rest shows within the screen target (300 ms) of pi drawing its editor again
  const drawn = r.drawn.get(r.marks.find((m) => m.transition === 'reject→rest')!)!;
  const rest = after.find((e) => e.new === 'idle' || e.new === 'done');
  assert.ok(rest && rest.ts - drawn <= 300, `rest ${rest ? rest.ts - drawn : 'never'} ms after the editor was drawn (+${drawn - esc} ms)`);
});
