// Fails closed through ACP: with a policy castellan cannot use as written, the editor's agent runs no gated tool, a yolo
// switch is refused, and the editor is shown why (issue 28, item 2; the other gated paths: robustness/fails-closed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { makeRig, prompt, refusalText, session } from './support.js';

const touch = (id: string, file: string) => `TOOL ${JSON.stringify({ toolCallId: id, title: `touch ${file}`, kind: 'execute', rawInput: { command: `touch ${file}` } })}`;

for (const [name, config] of [
  ['a decision in capitals', '[governance.permissions]\nshell = "Deny"\n'],
  ['a word that is not a decision', '[governance.permissions]\nshell = "denied"\n'],
  ['a PreToolUse matcher that does not compile', '[[hooks.hooks]]\nevent = "PreToolUse"\nmatcher = "(["\ncommand = "exit 1"\n'],
] as const) {
  test(`ACP under a broken policy (${name}): the call is denied with the reason, and yolo is refused`, async () => {
    const r = await makeRig({ config });
    try {
      const sid = await session(r);
      await prompt(r, sid, touch('b1', 'x'));
      assert.equal(existsSync(join(r.home, 'x')), false, 'the command ran');
      assert.match(refusalText(r, 'b1') ?? '', /the policy cannot be used as written, so castellan denies every tool call/);
      await assert.rejects(r.ctx.request('session/set_mode', { sessionId: sid, modeId: 'yolo' }), /castellan refused mode "yolo"/);
    } finally {
      await r.close();
    }
  });
}
