// E2E: a scripted parent run with `castellan run --rlm` delegates to two children through the real CLI (pane split
// --sub-harness, agent start --parent), waits for both (herd wait --children), reads their answers and exits; the
// layout, borders, badges, hook payloads, events and the depth limit are checked on a real server and a real client.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, tempEnvFor, type TempEnv } from '../support/temp-env.js';
import { readPane, startAttached, waitForPane } from '../support/term-harness.js';
import { waitFor } from '../support/wait-for.js';

function script(env: TempEnv, name: string, lines: string[]): string {
  const p = join(env.home, name);
  writeFileSync(p, ['#!/bin/sh', ...lines, ''].join('\n'), { mode: 0o755 });
  return p;
}

/** The world: a `cst` wrapper for the CLI, the parent and child scripts, an agent definition, user-layer hooks and limits. */
function setup(env: TempEnv): { parent: string } {
  script(env, 'cst', [`exec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"`]);
  // A child: reports working, tries to delegate past max_depth (refused), answers, reports done, then stays alive.
  script(env, 'child.sh', [
    'C="$HOME/cst"; name="$1"',
    '"$C" herd report --pane . --agent child --state working --source hook',
    'echo "child $name: depth=$CASTELLAN_DEPTH parent=$CASTELLAN_PARENT_PANE goal=$CASTELLAN_GOAL_ID"',
    '"$C" pane split --sub-harness -- /bin/true 2>"$HOME/deeper-$name.err"; echo "$?" > "$HOME/deeper-$name.code"',
    'echo "ANSWER-$name: 4$name"',
    '"$C" herd report --pane . --agent child --state done --source hook',
    'exec sleep 600',
  ]);
  const parent = script(env, 'parent.sh', [
    'C="$HOME/cst"',
    'echo "parent ready in $CASTELLAN_PANE_ID goal=$CASTELLAN_GOAL_ID"; read go',
    'a=$("$C" pane split --sub-harness --name child-a -- "$HOME/child.sh" a) || exit 11',
    'b=$("$C" agent start child --parent . | cut -d" " -f2)',
    'echo "children: $a $b"',
    '"$C" herd wait --children --status idle,done --timeout-ms 30000; echo "wait exit $?"',
    '"$C" pane read --pane "$a" | grep ANSWER',
    '"$C" pane read --pane "$b" | grep ANSWER',
    'echo READ-DONE; read x; echo bye',
  ]);
  mkdirSync(join(env.home, '.castellan', 'agents'), { recursive: true });
  writeFileSync(
    join(env.home, '.castellan', 'agents', 'child.md'),
    [
      '---',
      'name: child',
      'description: a scripted helper',
      'command: $HOME/child.sh b',
      'hooks:',
      '  SubagentStart:',
      '    - type: command',
      '      command: "echo started {{agentId}} {{paneId}} >> $HOME/agent-hooks.log"',
      '---',
      '',
    ].join('\n'),
  );
  // User-layer hooks need no trust; each appends its JSON payload line to hooks.jsonl.
  writeFileSync(
    join(env.home, '.castellan', 'config.toml'),
    [
      // The test reads the tree after the root program exits 0, which would otherwise close its pane and the session.
      '[session]',
      'remain_on_exit = "on"',
      '',
      '[limits]',
      'max_depth = 1',
      '',
      '[[hooks.hooks]]',
      'event = "SessionStart"',
      'command = "{ cat; echo; } >> \\"$HOME/hooks.jsonl\\""',
      '',
      '[[hooks.hooks]]',
      'event = "SessionEnd"',
      'command = "{ cat; echo; } >> \\"$HOME/hooks.jsonl\\""',
      '',
    ].join('\n'),
  );
  return { parent };
}

const payloads = (env: TempEnv): Array<Record<string, unknown>> => {
  const f = join(env.home, 'hooks.jsonl');
  if (!existsSync(f)) return [];
  return readFileSync(f, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
};

test('a parent in `castellan run --rlm` delegates to two children, waits for them, reads them; the tree is shown, governed and ended', { timeout: 90_000 }, async (t) => {
  const env = tempEnvFor(t);
  const { parent } = setup(env);
  const srv = await env.cli(['server', 'start', '--cols', '160', '--rows', '40', '--', process.execPath, BIN, 'run', '--rlm', '--goal', 'G', '--', parent]);
  assert.equal(srv.code, 0, srv.stderr);
  // Every sub-harness event, from before anything happens.
  const api = await env.api();
  const events: Array<Record<string, unknown>> = [];
  const subId = api.nextId();
  api.onMessage((m) => {
    if (m.id === subId && m.event) events.push(m.event as Record<string, unknown>);
  });
  await api.request('events.subscribe', { types: ['sub_harness_created', 'sub_harness_ended', 'agent_started'] }, { id: subId, timeoutMs: 5000 });
  const ui = await startAttached(env, { cols: 160, rows: 41, prompt: false });
  await waitFor(async () => (await readPane(env, 'w1:p1')).some((l) => l.includes('parent ready in w1:p1 goal=G')), { message: 'the parent runs in w1:p1 with the goal' });
  const ep = await env.call<{ goal_id: string; depth: number; rlm: boolean; children: unknown[] }>('episode.get', { pane_id: 'w1:p1' });
  assert.deepEqual([ep.goal_id, ep.depth, ep.rlm, ep.children.length], ['G', 0, true, 0], 'castellan run --rlm made w1:p1 an episode root');

  await env.call('pane.send_text', { pane_id: 'w1:p1', text: 'go', enter: true });
  const parentScreen = async () => (await readPane(env, 'w1:p1')).join('\n');
  const shown = await waitFor(async () => ((await parentScreen()).includes('READ-DONE') ? parentScreen() : ''), { timeoutMs: 40_000, message: 'the parent read its children', observe: parentScreen });
  assert.match(shown, /children: w1:p2 w1:p3/);
  assert.match(shown, /wait exit 0/, 'herd wait --children returned once both children were done');
  assert.match(shown, /ANSWER-a: 4a/);
  assert.match(shown, /ANSWER-b: 4b/);

  // Layout: both children in one column right of the parent, parent → child in their borders.
  const frames = await ui.frames();
  const byLabel = Object.fromEntries(frames.map((f) => [f.label, f]));
  assert.ok(byLabel.p1 && byLabel.p2 && byLabel.p3, ui.describe());
  assert.equal(byLabel.p2.x, byLabel.p1.x + byLabel.p1.w, 'the first child is right of its parent');
  assert.equal(byLabel.p3.x, byLabel.p2.x, 'the second child is below the first, beside the parent');
  assert.ok(byLabel.p3.y > byLabel.p2.y);
  const top = (await ui.screenText())[0];
  assert.match(top, /╭ w1:p1→p2 child-a /);
  assert.match(top, /⎇2 ✔2/, `the parent's border rolls up its two done children: ${top}`);
  assert.ok((await ui.find(/╭ w1:p1→p3 child /)).length === 1, ui.describe());
  // Badges: the children reported through `castellan herd report`.
  const panes = await env.call<{ panes: Array<{ pane_id: string; parent?: string; agent: { name?: string; state: string } }> }>('pane.list');
  for (const id of ['w1:p2', 'w1:p3']) {
    const p = panes.panes.find((x) => x.pane_id === id)!;
    assert.deepEqual([p.parent, p.agent.name, p.agent.state], ['w1:p1', 'child', 'done']);
  }
  // The depth limit (max_depth = 1): each child's own delegation was refused with a clear error.
  for (const n of ['a', 'b']) {
    assert.equal(readFileSync(join(env.home, `deeper-${n}.code`), 'utf8').trim(), '1');
    assert.match(readFileSync(join(env.home, `deeper-${n}.err`), 'utf8'), /castellan pane split: w1:p[23] is at depth 1: a sub-harness pane would be at depth 2 \(limits\.max_depth = 1\)/);
  }
  // The agent child ran its definition's own hooks.
  assert.match(readFileSync(join(env.home, 'agent-hooks.log'), 'utf8'), /^started child-[0-9a-f]{4} w1:p3$/m);

  // The parent exits: its children are closed, each reported ended.
  await env.call('pane.send_text', { pane_id: 'w1:p1', text: 'x', enter: true });
  await waitForPane(env, 'w1:p1', (p) => !!p.exited, { timeoutMs: 15_000, message: 'the parent\'s program exited' });
  await waitFor(async () => (await env.call<{ panes: unknown[] }>('pane.list')).panes.length === 1, { message: 'the children are closed' });
  await waitFor(() => payloads(env).filter((p) => p.event === 'SessionEnd').length === 3, { timeoutMs: 15_000, message: 'three SessionEnd hooks ran', observe: () => payloads(env) });

  const created = events.filter((e) => e.type === 'sub_harness_created').map((e) => [e.pane, e.parent, e.depth, e.goal_id]);
  assert.deepEqual(created, [
    ['w1:p2', 'w1:p1', 1, 'G'],
    ['w1:p3', 'w1:p1', 1, 'G'],
  ]);
  const ended = events.filter((e) => e.type === 'sub_harness_ended').map((e) => [e.pane, e.parent, e.depth, e.status]);
  assert.deepEqual(ended.sort(), [
    ['w1:p2', 'w1:p1', 1, 'closed'],
    ['w1:p3', 'w1:p1', 1, 'closed'],
  ]);
  const started = events.find((e) => e.type === 'agent_started')!;
  assert.deepEqual([started.pane, started.parent, started.depth, started.goal_id], ['w1:p3', 'w1:p1', 1, 'G']);

  // Hook payloads: the root's session (from castellan run) and each child's (from the server), all with the goal.
  const p = payloads(env).map((x) => [x.event, x.pane_id, x.goal_id, x.parent_pane, x.depth, x.plugin, x.status ?? null]);
  const starts = p.filter((x) => x[0] === 'SessionStart');
  assert.deepEqual(starts, [
    ['SessionStart', 'w1:p1', 'G', null, 0, 'parent.sh', null],
    ['SessionStart', 'w1:p2', 'G', 'w1:p1', 1, 'child.sh', null],
    ['SessionStart', 'w1:p3', 'G', 'w1:p1', 1, 'child', null],
  ]);
  const ends = p.filter((x) => x[0] === 'SessionEnd');
  assert.deepEqual(ends.slice(0, 2).sort(), [
    ['SessionEnd', 'w1:p2', 'G', 'w1:p1', 1, 'child.sh', 'closed'],
    ['SessionEnd', 'w1:p3', 'G', 'w1:p1', 1, 'child', 'closed'],
  ]);
  assert.deepEqual(ends[2], ['SessionEnd', 'w1:p1', 'G', null, 0, 'parent.sh', 'ok'], 'the root\'s SessionEnd comes last, after its tree');
  for (const x of payloads(env)) assert.equal(typeof x.cwd, 'string');
});

test('a failing SessionStart hook refuses the sub-harness split (code denied, the hook\'s reason); herd wait --children with no children', { timeout: 60_000 }, async (t) => {
  const env = tempEnvFor(t);
  mkdirSync(join(env.home, '.castellan'), { recursive: true });
  writeFileSync(
    join(env.home, '.castellan', 'config.toml'),
    ['[[hooks.hooks]]', 'event = "SessionStart"', 'matcher = "forbidden"', 'command = "echo no helpers named forbidden >&2; exit 1"', ''].join('\n'),
  );
  assert.equal((await env.cli(['server', 'start', '--cols', '120', '--rows', '30'])).code, 0);
  const inPane = { ...env.env, CASTELLAN_PANE_ID: 'w1:p1' };
  const cli = (args: string[]) => import('../support/temp-env.js').then((m) => m.runNode([BIN, ...args], { env: inPane, cwd: env.home }));
  const notYet = await cli(['pane', 'split', '--sub-harness', '--', '/bin/true']);
  assert.equal(notYet.code, 1);
  assert.match(notYet.stderr, /w1:p1 is not in a recursive episode: start its agent with `castellan run --rlm -- COMMAND`/);
  await env.call('episode.start', { pane_id: 'w1:p1', goal_id: 'G2' });
  const wait = await cli(['herd', 'wait', '--children', '--status', 'idle']);
  assert.equal(wait.code, 1);
  assert.match(wait.stderr, /w1:p1 has no sub-harness panes to wait on/);
  script(env, 'forbidden', ['sleep 600']);
  const denied = await cli(['pane', 'split', '--sub-harness', '--', join(env.home, 'forbidden')]);
  assert.equal(denied.code, 1);
  assert.match(denied.stderr, /SessionStart hook refused sub-harness pane w1:p2 of w1:p1: no helpers named forbidden/);
  assert.equal((await env.call<{ panes: unknown[] }>('pane.list')).panes.length, 1, 'no pane was opened');
  const ok = await cli(['pane', 'split', '--sub-harness', '--json', '--', '/bin/cat']);
  assert.equal(ok.code, 0, ok.stderr);
  assert.deepEqual(JSON.parse(ok.stdout), { pane_id: 'w1:p3', window_id: 'w1', parent: 'w1:p1', depth: 1, goal_id: 'G2' }, 'the refused split\'s id stays unused');
  // A child that goes away ends a --children wait with exit 4.
  const waiting = cli(['herd', 'wait', '--children', '--status', 'done', '--timeout-ms', '20000']);
  await waitFor(async () => (await env.call<{ subscribers: number }>('ping')).subscribers >= 1, { message: 'herd wait --children armed' });
  await env.call('pane.close', { pane_id: 'w1:p3' });
  const gone = await waiting;
  assert.equal(gone.code, 4, gone.stderr);
  assert.match(gone.stderr, /w1:p3 was closed while waiting/);
});
