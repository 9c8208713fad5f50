// Would the hook bridge start faster another way? Node's start variants against today's bridge, alternating in a pane.
//
//   node --import tsx bench/hook-startup.mts [--calls N] [--json FILE]
//
// The bridge (PreToolUse) is Node's start plus ~9 ms of CPU and the server's answer. This probe times, in one run and
// in turn, in a real pane's environment with the payload on a socketpair (bench/lib/hook-bridge.ts timedCall):
// - `node -e 0`, and the same with one V8 flag (any: Node's built-in code cache no longer matches V8's flags);
// - a user-land startup snapshot holding nothing (`--build-snapshot`, then `--snapshot-blob`): what the blob costs;
// - the bridge bundle run from such a snapshot (its top level evaluated at build time, hookMain as the main function);
// - today's bridge: the bin with its V8 code cache, and without (CASTELLAN_HOOK_CODE_CACHE=0).
// The snapshot bridge is a probe, not a bridge: its event seq is frozen at build time (hook-command.ts SEQ), so the
// server may ignore its reports, which only flatters it. Run `npm run build` first.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { closeAll, track } from './lib/cleanup.js';
import { makeRoot, makeTmp, removeTmp, scriptEnv } from './lib/env.js';
import { bridgePane, timedCall, type Timed } from './lib/hook-bridge.js';
import { table, type Row } from './lib/report.js';
import { median, round, shq } from './lib/util.js';

const argv = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const calls = Number(opt('--calls') ?? 40);
if (!Number.isInteger(calls) || calls < 1) throw new Error('--calls needs a whole number >= 1');
const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const tmp = makeTmp();
track({ name: 'tmp', close: async () => removeTmp(tmp), killSync: () => removeTmp(tmp) });

/** A snapshot entry that evaluates `bundle` now and runs the bin's hook path when the blob is deserialized. */
const bridgeEntry = (bundle: string) => `'use strict';
const v8 = require('node:v8');
const fs = require('node:fs');
const path = require('node:path');
const file = ${JSON.stringify(bundle)};
const m = { exports: {} };
new Function('exports', 'require', 'module', '__filename', '__dirname', fs.readFileSync(file, 'utf8'))(m.exports, require, m, file, path.dirname(file));
v8.startupSnapshot.setDeserializeMainFunction(async () => {
  const argv = process.argv.slice(1);
  if (!process.env.CASTELLAN_ENV || !m.exports.isFastHookArgv(argv)) return;
  m.exports.exitWhenFlushed(await m.exports.hookMain(argv));
});
`;

function buildBlob(name: string, entry: string): string {
  const src = join(tmp, `${name}.js`);
  const blob = join(tmp, `${name}.blob`);
  writeFileSync(src, entry);
  execFileSync(process.execPath, ['--snapshot-blob', blob, '--build-snapshot', src], { stdio: 'inherit', env: { ...process.env, NODE_EXTRA_CA_CERTS: '' } });
  return blob;
}

try {
  const root = makeRoot(REPO, tmp, true);
  const b = scriptEnv({ repo: REPO, root, tmp, opts: { quick: false, snapshot: true }, dataDir: join(tmp, 'data'), profDir: join(tmp, 'prof') });
  const empty = buildBlob('empty', "require('node:v8').startupSnapshot.setDeserializeMainFunction(() => {});\n");
  const bridge = buildBlob('bridge', bridgeEntry(join(root, 'dist', 'hook', 'hook-main.cjs')));
  const { s, env } = await bridgePane(b);
  const l0 = loadavg().map((x) => round(x, 2));
  const node = shq(process.execPath);
  const bin = shq(join(root, 'bin', 'castellan.js'));
  const pre = JSON.stringify({ session_id: 'bench', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls -la' }, cwd: s.home });
  const series: Record<string, { what: string; cmd: string }> = {
    nodeZero: { what: 'node -e 0', cmd: `${node} -e 0` },
    nodeV8Flag: { what: 'node --max-semi-space-size=1 -e 0 (one V8 flag)', cmd: `${node} --max-semi-space-size=1 -e 0` },
    emptyBlob: { what: 'node --snapshot-blob <empty user-land snapshot>', cmd: `${node} --snapshot-blob ${shq(empty)}` },
    bridgeBlob: { what: 'bridge PreToolUse from a user-land snapshot (probe)', cmd: `${node} --snapshot-blob ${shq(bridge)} hook claude PreToolUse` },
    bridgeBin: { what: 'bridge PreToolUse: node bin hook, V8 code cache (today)', cmd: `${node} ${bin} hook claude PreToolUse` },
    bridgeNoCache: { what: 'bridge PreToolUse: node bin hook, CASTELLAN_HOOK_CODE_CACHE=0', cmd: `CASTELLAN_HOOK_CODE_CACHE=0 ${node} ${bin} hook claude PreToolUse` },
  };
  const got: Record<string, Timed> = Object.fromEntries(Object.keys(series).map((k) => [k, { wallMs: [], cpuMs: [] }]));
  const noCa = { ...env, NODE_EXTRA_CA_CERTS: '' };
  try {
    for (let i = 0; i < calls; i++)
      for (const [k, x] of Object.entries(series)) {
        const one = timedCall(x.cmd, noCa, pre);
        got[k]!.wallMs.push(one.wallMs);
        got[k]!.cpuMs.push(one.cpuMs);
      }
  } finally {
    await s.stop();
  }
  const rows: Row[] = Object.entries(series).flatMap(([k, x]) => [
    { section: 'startup', metric: `${x.what}, median wall`, unit: 'ms', castellan: median(got[k]!.wallMs), digits: 1 },
    { section: 'startup', metric: `${x.what}, median CPU`, unit: 'ms', castellan: median(got[k]!.cpuMs), digits: 1 },
  ]);
  process.stdout.write(`${cpus().length} cores, load at start ${l0.join(' ')}, at end ${loadavg().map((x) => round(x, 2)).join(' ')}; ${calls} rounds\n`);
  process.stdout.write(table(rows) + '\n');
  const out = opt('--json');
  if (out) writeFileSync(out, JSON.stringify({ rows, raw: got }, null, 1));
} finally {
  await closeAll();
}
