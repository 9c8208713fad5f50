// Records a real agent's pty byte stream with timestamps, ground-truth marks and hook events, for the replay tests.
//
//   npx tsx scripts/badge-record.ts AGENT [--hooks] [--out test/fixtures/streams/AGENT.jsonl.gz] [--size 80x24]
//
// Not in CI (it needs the agent lab). Runs badge-lab's scenario against the agent in a bare pty (castellan's own
// spawnPty, read back through castellan's Screen), and writes gzipped JSON lines: {meta}, then in time order
// {t, o: text} output chunks (UTF-8 decoded across chunk ends), {t, input: true, data} (typed text, keys),
// {t, mark: {step, transition, want}} and, with
// --hooks, {t, hook: event, payload: {the fields castellan's hook tables read}}. t = ms since the spawn.
import { mkdtempSync, readFileSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { spawnPty } from '../src/server/pty.js';
import { Screen } from '../src/server/screen.js';
import { installedEvents } from '../src/integrations/tables.js';
import type { AgentName } from '../src/integrations/types.js';
import { AGENTS, LAB_HOME, Mock, SLOW_SECONDS, agentCommand, onlyEvents, prunedHooksEnv, runScenario, sleep, type Term } from './badge-lab.js';

const arg = (name: string, def: string) => { const i = process.argv.indexOf(`--${name}`); return i > 0 ? process.argv[i + 1] : def; };
const agent = process.argv[2];
if (!agent || !AGENTS[agent]) throw new Error(`usage: badge-record.ts AGENT (${Object.keys(AGENTS).join(', ')}) [--hooks] [--out FILE] [--size COLSxROWS]`);
const hooks = process.argv.includes('--hooks');
const out = arg('out', fileURLToPath(new URL(`../test/fixtures/streams/${agent}${hooks ? '-hooks' : ''}.jsonl.gz`, import.meta.url)));
const [cols, rows] = arg('size', '80x24').split('x').map(Number);
const HOOK_LOG = fileURLToPath(new URL('./badge-hook-log.mjs', import.meta.url));

const KEYS = { Enter: '\r', Escape: '\x1b', 'C-u': '\x15' } as const;

async function main(): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'badge-rec-'));
  const hookFile = join(scratch, 'hooks.jsonl');
  const mock = new Mock();
  await mock.start();
  const screen = new Screen({ cols, rows, scrollback: 1000 });
  const lines: string[] = [];
  const inputs: Array<{ t: number; data: string }> = [];
  const t0 = Date.now();
  const rel = (t: number) => t - t0;
  const decoder = new StringDecoder('utf8');
  // The events castellan's installer registers, as in a castellan pane (the replay reads those only anyway).
  const installed = installedEvents(agent as AgentName).map((r) => r.event);
  const hooksCmd = hooks ? onlyEvents(installed, (ev) => `${process.execPath} ${HOOK_LOG} ${hookFile} ${ev}`) : undefined;
  const env = { ...process.env, TERM: 'xterm-256color', AGENT_LAB_HOME: LAB_HOME, ...(hooks ? prunedHooksEnv(agent, join(scratch, 'wrap'), installed) : {}) } as Record<string, string>;
  const p = spawnPty({ command: agentCommand(agent, mock.port, join(scratch, 'lab'), hooksCmd), cwd: scratch, env, cols, rows });
  p.onData((d) => {
    const text = decoder.write(d);
    if (!text) return;
    lines.push(JSON.stringify({ t: rel(Date.now()), o: text }));
    screen.write(text);
  });
  const term: Term = {
    text: async () => screen.snapshot().lines.join('\n'),
    // castellan's panes note typed input (noteInput), so its echo is not the agent's activity: so does the replay.
    type: async (text) => { inputs.push({ t: Date.now(), data: text }); p.write(text); },
    key: async (name) => { const t = Date.now(); inputs.push({ t, data: KEYS[name] }); p.write(KEYS[name]); return t; },
  };
  try {
    const marks = await runScenario(agent, term, mock, (m) => process.stderr.write(`[rec ${agent}] ${m}\n`));
    p.write(AGENTS[agent].quit);
    await sleep(400);
    p.write('\r');
    await sleep(1500);
    const events = [...lines.map((l) => ({ t: (JSON.parse(l) as { t: number }).t, line: l }))];
    // What was typed, too: an Enter into an idle pane with typed text is a turn's start (src/detect/submit.ts).
    for (const { t, data } of inputs) events.push({ t: rel(t), line: JSON.stringify({ t: rel(t), input: true, data }) });
    for (const m of marks) events.push({ t: rel(m.t), line: JSON.stringify({ t: rel(m.t), mark: { step: m.step, transition: m.transition, want: m.want } }) });
    if (existsSync(hookFile)) {
      for (const l of readFileSync(hookFile, 'utf8').trim().split('\n').filter(Boolean)) {
        const h = JSON.parse(l) as { ms: number; event: string; payload: unknown };
        events.push({ t: rel(h.ms), line: JSON.stringify({ t: rel(h.ms), hook: h.event, payload: h.payload }) });
      }
    }
    events.sort((a, b) => a.t - b.t);
    const meta = { agent, cols, rows, hooks, slowSeconds: SLOW_SECONDS, recorded: new Date(t0).toISOString(), origin: `agent-lab ${agent} in a bare pty (scripts/badge-record.ts)` };
    const body = [JSON.stringify({ meta }), ...events.map((e) => e.line)].join('\n') + '\n';
    writeFileSync(out, gzipSync(body, { level: 9 }));
    process.stderr.write(`wrote ${out}: ${events.length} lines, ${body.length} bytes raw\n`);
  } finally {
    await p.kill();
    await mock.stop();
    screen.dispose();
    rmSync(scratch, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  }
}

main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
