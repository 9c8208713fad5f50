// The platform's process room (src/platform/proc): no module outside it names the proc filesystem, ps output is read
// safely whatever it holds, and the two backends give the same answers about a real process tree on this machine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { backends, chooseBackend, parseLsofCwd, parseLsofCwds, parsePs, parsePsLine, platformReport, type ProcBackend } from '../../src/platform/proc/index.js';
import { waitFor } from '../support/wait-for.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ROOM = 'src/platform/proc/';
/** `/proc` as a path: not the tail of another path (src/platform/proc). */
const NAMES_PROC = /(?<![\w.-])\/proc\b/;

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}

test('no file in src/, share/ or bin/ outside the platform room names /proc', () => {
  const offenders: string[] = [];
  for (const top of ['src', 'share', 'bin']) {
    for (const file of walk(join(ROOT, top))) {
      const rel = relative(ROOT, file);
      if (rel.startsWith(ROOM)) continue;
      const lines = readFileSync(file, 'utf8').split('\n');
      lines.forEach((l, i) => NAMES_PROC.test(l) && offenders.push(`${rel}:${i + 1}: ${l.trim()}`));
    }
  }
  assert.deepEqual(offenders, []);
  // The pattern itself finds what it must, and not the room's own import path.
  assert.ok(NAMES_PROC.test("readdirSync('/proc')") && NAMES_PROC.test('for d in /proc/[0-9]*') && !NAMES_PROC.test("from '../platform/proc/index.js'"));
});

test('ps lines: fields read (the session as a token), comm without its path, argv split; garbage, binary and huge input are not rows', () => {
  assert.deepEqual(parsePsLine('  123     1   123   123    -1 Ss   zsh             -zsh'), { pid: 123, ppid: 1, pgrp: 123, session: 123, sess: '123', tpgid: -1, state: 'S', comm: 'zsh', argv: ['-zsh'] });
  // macOS prints a session pointer, not an id: kept as a token to compare, never read as a pid.
  const mac = parsePsLine('4242 4000 4242 ffffff8012ab34c0 4242 R+ /usr/local/bin/node node /opt/x/bin/gemini --yolo')!;
  assert.deepEqual([mac.comm, mac.argv, mac.tpgid, mac.state, mac.sess, mac.session], ['node', ['node', '/opt/x/bin/gemini', '--yolo'], 4242, 'R', 'ffffff8012ab34c0', -1]);
  for (const none of ['0', '-', '?', '0x0', 'zz', 'a'.repeat(40)]) assert.equal(parsePsLine(`7 1 7 ${none} -1 S sh sh`)?.sess, '', none);
  assert.equal(parsePsLine('77 1 77 77 -1 Z defunct')!.argv.length, 0);
  assert.equal(parsePsLine('5 1 5 5 -1 S averyveryverylongprogramname x')!.comm.length, 15);
  for (const bad of ['', 'PID PPID PGID SESS TPGID STAT UCOMM ARGS', '-5 1 1 1 1 S x', '0 0 0 0 0 S x', '12 x 1 1 1 S y', '99999999999999999999 1 1 1 1 S x', '\0\x01\x02', '12 1', '12 1 1 1 S x']) assert.equal(parsePsLine(bad), undefined, JSON.stringify(bad));
  const huge = parsePsLine(`9 1 9 9 -1 S sh ${'a'.repeat(10_000)} ${'b '.repeat(200)}`)!;
  assert.ok(huge.argv.length <= 64 && huge.argv.every((a) => a.length <= 512));
  const bytes = Buffer.alloc(256 * 1024);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919) % 256;
  assert.equal(parsePs(bytes.toString('latin1')).size, 0);
  assert.equal(parsePs(Array.from({ length: 50 }, (_, i) => `${i + 2} 1 1 1 -1 S sh sh`).join('\n'), 10).size, 10);
  assert.equal(parseLsofCwd('p123\nfcwd\nn/Users/me/my dir\n'), '/Users/me/my dir');
  assert.equal(parseLsofCwd('p123\n'), undefined);
  assert.equal(parseLsofCwd('garbage\nnrelative\n'), undefined);
  // One lsof for several panes: each path goes to the pid before it; forged or relative lines go nowhere.
  assert.deepEqual([...parseLsofCwds('p12\nfcwd\nn/a b\np13\nfcwd\nn/c\np14\nnrelative\npx9\nn/forged\np0\nn/zero\n')], [[12, '/a b'], [13, '/c']]);
  assert.equal(parseLsofCwds(bytes.toString('latin1')).size, 0);
});

test('the environment switch: CASTELLAN_PLATFORM_BACKEND=portable forces ps/lsof; nonsense leaves the default', () => {
  assert.equal(chooseBackend({ CASTELLAN_PLATFORM_BACKEND: 'portable' }).name, 'portable');
  assert.equal(chooseBackend({ CASTELLAN_PLATFORM_BACKEND: ' Portable ' }).name, 'portable');
  const dflt = chooseBackend({}).name;
  assert.equal(dflt, process.platform === 'linux' ? 'proc' : 'portable');
  assert.equal(chooseBackend({ CASTELLAN_PLATFORM_BACKEND: '../../etc' }).name, dflt);
  const rep = platformReport();
  assert.ok(rep.backend === 'proc' || rep.backend === 'portable');
  assert.equal(backends.portable.lacks().length > 0, true, 'the portable backend says what it lacks');
  assert.deepEqual(backends.proc.lacks(), []);
});

/** A pane stand-in: a session leader in `cwd` running a child (argv with an agent-like name) and a job in its own group. */
async function paneTree(t: { after(fn: () => void): void }, cwd: string) {
  const leader = spawn('/bin/sh', ['-c', 'set -m; sleep 301 & sh -c "sleep 302; :" fakeagent --model m & echo ready; wait'], { cwd, detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
  t.after(() => {
    try {
      process.kill(-leader.pid!, 'SIGKILL');
    } catch {
      /* gone */
    }
    for (const b of [backends.proc, backends.portable]) for (const pid of b.sessionMembers(new Set([leader.pid!]), process.pid) ?? []) try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
  });
  await new Promise<void>((resolve) => leader.stdout!.once('data', () => resolve()));
  return leader.pid!;
}

const backendsHere: ProcBackend[] = process.platform === 'linux' ? [backends.proc, backends.portable] : [backends.portable];

test('both backends on a real tree: the same processes, argv, cwd, ancestry and members', { timeout: 60_000 }, async (t) => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'castellan-room-')));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const root = await paneTree(t, dir);
  const seen: Record<string, { pids: number[]; argv: string[]; cwd?: string; members: number[] }> = {};
  for (const b of backendsHere) {
    const tree = await waitFor(() => {
      const r = b.readPaneProcesses(root);
      return r.processes.length >= 4 && r.processes.some((p) => p.pid !== root && p.argv.includes('fakeagent')) && r.processes.some((p) => p.argv.join(' ') === 'sleep 301') ? r : undefined;
    }, { timeoutMs: 10_000, message: `${b.name}: the tree` });
    const agent = tree.processes.find((p) => p.pid !== root && p.argv.includes('fakeagent'))!;
    const sleeper = tree.processes.find((p) => p.argv.join(' ') === 'sleep 301')!;
    assert.equal(b.readStat(root)?.pid, root, b.name);
    assert.equal(b.descendsFrom(agent.pid, root), true, `${b.name}: the agent runs under the pane`);
    assert.equal(b.descendsFrom(process.pid, root), false, `${b.name}: this test does not`);
    // Forty callers at once (the hook door's burst): every answer right, from shared reads.
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => b.descendsFromAsync(i % 2 ? agent.pid : process.pid, root)));
    assert.deepEqual(answers, Array.from({ length: 40 }, (_, i) => i % 2 === 1), `${b.name}: async ancestry`);
    assert.equal(b.processCwd(root), dir, `${b.name}: cwd`);
    assert.equal(b.processAlive(root), true);
    const members = b.sessionMembers(new Set([root]), process.pid) ?? [];
    for (const p of tree.processes) assert.ok(members.includes(p.pid), `${b.name}: ${p.pid} (${p.argv.join(' ')}) is a member`);
    assert.ok(!members.includes(process.pid));
    seen[b.name] = { pids: tree.processes.map((p) => p.pid).sort(), argv: [sleeper.comm, ...sleeper.argv], cwd: b.processCwd(root), members: members.sort() };
  }
  if (seen.proc && seen.portable) {
    assert.deepEqual(seen.portable.pids, seen.proc.pids, 'the same tree');
    assert.deepEqual(seen.portable.argv, seen.proc.argv, 'the same argv (no blanks in it)');
    assert.equal(seen.portable.cwd, seen.proc.cwd);
    assert.deepEqual(seen.portable.members, seen.proc.members, 'the same members');
  }
  // Gone processes: no answer, never a throw.
  for (const b of backendsHere) {
    assert.deepEqual(b.readPaneProcesses(2 ** 22 + 12345).processes, []);
    assert.equal(b.processCwd(2 ** 22 + 12345), undefined);
    assert.equal(b.readStat(-1), undefined);
    assert.equal(b.processCwd(-1), undefined);
  }
});

test('the portable backend: a directory asked for now is read after the question, not the half-second-old answer', { timeout: 30_000 }, async (t) => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'castellan-cwd-')));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'sub'));
  // A shell that reads commands from a pipe and says when it has run each.
  const sh = spawn('/bin/sh', [], { cwd: dir, stdio: ['pipe', 'pipe', 'ignore'] });
  t.after(() => sh.kill('SIGKILL'));
  let out = '';
  sh.stdout!.on('data', (d: Buffer) => (out += String(d)));
  const b = backends.portable;
  assert.equal(await b.processCwdAsync(sh.pid!), dir, 'first read');
  sh.stdin!.write('cd sub && echo moved\n');
  await waitFor(() => out.includes('moved') || undefined, { timeoutMs: 5000, message: 'the shell ran the cd' });
  // The answer read before the cd may still be given to a listing (half a second); a new pane asks with 0.
  assert.equal(b.processCwd(sh.pid!, 0), join(dir, 'sub'), 'sync, asked now');
  sh.stdin!.write('cd .. && echo back\n');
  await waitFor(() => out.includes('back') || undefined, { timeoutMs: 5000, message: 'the shell went back' });
  assert.equal(await b.processCwdAsync(sh.pid!, 0), dir, 'async, asked now');
});

/** A shell's job-control job that ignores HUP and TERM, in its own group, left behind by its shell (killed): an orphan. */
async function orphanedJob(t: { after(fn: () => void): void }) {
  // Without a terminal sh turns job control off, so the job puts itself in a group of its own (setpgid, as `set -m` does).
  const job = '$SIG{HUP} = $SIG{TERM} = q(IGNORE); setpgrp(0, 0); sleep 1 while 1';
  const leader = spawn('/bin/sh', ['-c', `perl -e '${job}' & echo $!; wait`], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
  const pid = await new Promise<number>((resolve) => leader.stdout!.once('data', (d: Buffer) => resolve(Number(String(d).trim()))));
  const kill = () => {
    for (const g of [pid, leader.pid!]) try { process.kill(-g, 'SIGKILL'); } catch { /* gone */ }
  };
  await waitFor(() => backends.portable.readStat(pid)?.pgrp === pid || undefined, { timeoutMs: 5000, message: 'the job in its own group' });
  t.after(kill);
  // Seen by the portable backend while its shell leads the session (what the server does while a pane runs)...
  backends.portable.readPaneProcesses(leader.pid!);
  process.kill(leader.pid!, 'SIGKILL');
  await waitFor(() => !backends.portable.processAlive(leader.pid!) || undefined, { timeoutMs: 5000, message: 'the shell is gone' });
  return { leader: leader.pid!, job: pid };
}

test('a job in its own group that outlived its shell still belongs to the pane: every backend finds it by its session', { timeout: 30_000 }, async (t) => {
  const { leader, job } = await orphanedJob(t);
  for (const b of backendsHere) {
    const members = b.sessionMembers(new Set([leader]), process.pid) ?? [];
    assert.ok(members.includes(job), `${b.name}: the orphaned job ${job} is a member (${members.join(' ')})`);
    assert.ok(!members.includes(process.pid), b.name);
  }
});

test('the reaper, listing with ps (what macOS runs), ends a job in its own group that outlived its shell', { timeout: 30_000 }, async (t) => {
  const { leader, job } = await orphanedJob(t);
  const reaper = spawn('/bin/sh', [fileURLToPath(new URL('../../bin/castellan-reaper.sh', import.meta.url))], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
  t.after(() => {
    try { process.kill(-reaper.pid!, 'SIGKILL'); } catch { /* gone */ }
  });
  reaper.stdin!.end(`+${leader}\n`);
  await waitFor(() => !backends.portable.processAlive(job) || undefined, { timeoutMs: 10_000, message: `the job ${job} is ended` });
});
