// Found with the real Qwen Code in agent-lab: it announces a tool call while "preparing" it (rawInput {}), and sends the
// command only in its permission request. castellan judged the call once, on first sight, so a PreToolUse hook that reads
// the command saw only the title ("Shell") and the command ran. A later sighting that brings the missing input is judged
// again; a deny already given stands.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeRig, prompt, refusalText, session } from './support.js';

test('a call announced with no input and asked about with its command is judged on the command', async () => {
  const dir = (await import('node:fs')).mkdtempSync(join((await import('node:os')).tmpdir(), 'cacp-hook-'));
  const hook = join(dir, 'deny-forbidden.sh');
  writeFileSync(hook, '#!/bin/sh\nif grep -q forbidden; then echo "no forbidden files" >&2; exit 2; fi\nexit 0\n', { mode: 0o755 });
  const r = await makeRig({ config: `[[hooks.hooks]]\nevent = "PreToolUse"\ncommand = "${hook}"\nmatcher = "shell"\n` });
  try {
    const sid = await session(r);
    await prompt(r, sid, `LATE ${JSON.stringify({ toolCallId: 'q1', title: 'Shell', kind: 'execute', rawInput: { command: 'touch forbidden-file' } })}`);
    assert.equal(existsSync(join(r.home, 'forbidden-file')), false, 'the command the hook denies did not run');
    assert.equal(r.asked.length, 0, 'castellan answered the agent itself');
    assert.match(refusalText(r, 'q1') ?? '', /no forbidden files/);
    // A harmless command announced the same way still reaches the editor, which decides (and here allows) it.
    await prompt(r, sid, `LATE ${JSON.stringify({ toolCallId: 'q2', title: 'Shell', kind: 'execute', rawInput: { command: 'touch fine-file' } })}`);
    assert.equal(r.asked.length, 1);
    assert.equal(existsSync(join(r.home, 'fine-file')), true);
    // opencode and Kilo announce `{cwd}` first: not an input that names what runs either.
    await prompt(r, sid, `LATE ${JSON.stringify({ toolCallId: 'q4', title: 'bash', kind: 'execute', preparing: { cwd: '/' }, rawInput: { command: 'touch forbidden-2' } })}`);
    assert.equal(existsSync(join(r.home, 'forbidden-2')), false);
    assert.match(refusalText(r, 'q4') ?? '', /no forbidden files/);
  } finally {
    await r.close();
    (await import('node:fs')).rmSync(dir, { recursive: true, force: true });
  }
});

test('a deny given on first sight stands when the input arrives', async () => {
  const r = await makeRig({ config: '[governance.permissions]\nshell = "deny"\n' });
  try {
    const sid = await session(r);
    await prompt(r, sid, `LATE ${JSON.stringify({ toolCallId: 'q3', title: 'Shell', kind: 'execute', rawInput: { command: 'touch x' } })}`);
    assert.equal(existsSync(join(r.home, 'x')), false);
    assert.match(refusalText(r, 'q3') ?? '', /the permission policy denies shell/);
  } finally {
    await r.close();
  }
});
