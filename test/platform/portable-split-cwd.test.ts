// The portable backend's directory reads (lsof) and a split by key: an answer lsof read before the shell's `cd` and
// delivered after it is not what the new pane starts in. The failure a fresh-clone CI's portable pass once hit, made
// certain here with an lsof that reads at once and answers when the test says so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tempEnvFor } from '../support/temp-env.js';
import { PROMPT_RE, readPane, startAttached } from '../support/term-harness.js';
import { waitFor } from '../support/wait-for.js';

const realLsof = (() => {
  try {
    return execFileSync('sh', ['-c', 'command -v lsof'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
})();

test('portable backend: a split by key opens where the shell is now, not where an lsof answer delivered just before said', { skip: !realLsof && 'no lsof here (the portable backend needs it)', timeout: 60_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'castellan-lsof-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const bin = join(dir, 'bin');
  const log = join(dir, 'lsof.log');
  const gate = join(dir, 'lsof.gate');
  mkdirSync(bin);
  // Reads at once, answers once the gate exists (every read after the gate opens answers at once).
  writeFileSync(join(bin, 'lsof'), `#!/bin/sh\nout=$('${realLsof}' "$@"); rc=$?\necho read >> '${log}'\nwhile [ ! -e '${gate}' ]; do sleep 0.02; done\necho answered >> '${log}'\nprintf '%s\\n' "$out"\nexit $rc\n`);
  chmodSync(join(bin, 'lsof'), 0o755);
  const env = tempEnvFor(t, { env: { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`, CASTELLAN_PLATFORM_BACKEND: 'portable' } });
  const proj = join(env.home, 'proj');
  mkdirSync(proj);
  const lines = () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []);
  const h = await startAttached(env, { cols: 100, rows: 24, timeoutMs: 20_000 });
  // The first read of the shell's directory (the snapshot after the start's output goes quiet) is held: it has read HOME.
  await waitFor(() => lines().includes('read') || undefined, { timeoutMs: 15_000, message: 'a directory read is under way' });
  h.write('cd proj && echo cd-$((40+2))\r');
  await waitFor(async () => (await readPane(env, 'w1:p1')).some((l) => l.trim() === 'cd-42'), { message: 'the shell ran the cd' });
  // Now the held answer (HOME) arrives; the split follows at once, well within the half second listings reuse it for.
  writeFileSync(gate, '');
  await waitFor(() => lines().includes('answered') || undefined, { message: 'the held answer was delivered' });
  h.prefix('%');
  const p2 = await h.waitForFrame('p2');
  await h.waitForText(PROMPT_RE, { region: p2.inner });
  h.write('pwd\r');
  await waitFor(async () => (await readPane(env, 'w1:p2')).includes(realpathSync(proj)), {
    message: 'the new pane starts in proj, where the shell is',
    observe: async () => ({ pane: await readPane(env, 'w1:p2'), lsof: lines(), log: env.logTail() }),
  });
  assert.ok(lines().filter((l) => l === 'read').length >= 2, 'the split read the directory again');
});
