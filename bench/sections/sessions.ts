// Many sessions (issue 34): what each session after the first costs. tmux holds every session in its one server;
// castellan starts later sessions inside the first one's server process (src/server/host), where a server of its own
// per session cost ~70 MB. Measured as the server process's growth (RSS and USS, settled) from one session to
// 1 + N, divided by N; each session has one idle shell pane, as `tmux new -d -s NAME` gives.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CastellanServer } from '../lib/castellan.js';
import type { BenchEnv } from '../lib/env.js';
import { memKiB, type Mem } from '../lib/proc.js';
import type { Row, SectionResult } from '../lib/report.js';
import { TmuxServer } from '../lib/tmux.js';
import { log, round, sleep } from '../lib/util.js';

const run = promisify(execFile);
const SHELL = ['bash', '--norc', '--noprofile'];
/** The target per session after the first (issue 34). */
const TARGET_MB = 15;

/**
 * Memory once the process went quiet: the last of three samples after 7 s. Not sooner: a castellan server gives back
 * the young generation its start grew about 5.5 s after it went quiet (young-gen-shrink.ts); read before that, the
 * first session's figure holds start-up garbage that a later read does not, and the difference comes out negative.
 */
async function settled(pid: number): Promise<Mem> {
  await sleep(7000);
  let m = memKiB(pid);
  for (let i = 0; i < 2; i++) {
    await sleep(250);
    m = memKiB(pid);
  }
  return m;
}

export async function sessions(b: BenchEnv): Promise<SectionResult> {
  const added = b.opts.quick ? 2 : 4;
  const names = Array.from({ length: added }, (_, i) => `s${i + 2}`);
  // castellan: the first session is the bench's usual server; the others are started as a user starts them.
  const s = await CastellanServer.start(b, { cols: 202, rows: 53, command: SHELL });
  const env: NodeJS.ProcessEnv = { ...b.env, HOME: s.home, XDG_STATE_HOME: join(s.home, 'state'), XDG_CONFIG_HOME: join(s.home, 'config'), SHELL: '/bin/bash' };
  delete env.CASTELLAN_SOCKET;
  const cli = (...args: string[]) => run(process.execPath, [join(b.root, 'bin', 'castellan.js'), ...args], { env, cwd: s.home, timeout: 30_000 });
  let cOne: Mem, cMany: Mem;
  let hosted = 0;
  try {
    cOne = await settled(s.pid);
    for (const n of names) await cli('new', '-d', '-s', n);
    const rows = JSON.parse((await cli('ls', '--json')).stdout) as Array<{ session: string; pid?: number }>;
    hosted = rows.filter((r) => names.includes(r.session) && r.pid === s.pid).length;
    cMany = await settled(s.pid);
  } finally {
    for (const n of names) await cli('server', 'stop', '--session', n).catch(() => undefined);
    await s.stop();
  }
  const t = await TmuxServer.start(b, { cols: 200, rows: 50, command: SHELL.join(' ') });
  let tOne: Mem, tMany: Mem;
  try {
    tOne = await settled(t.pid);
    for (const n of names) await t.cmd('new-session', '-d', '-s', n, '-x', '200', '-y', '50', SHELL.join(' '));
    tMany = await settled(t.pid);
  } finally {
    await t.stop();
  }
  const per = (one: Mem, many: Mem, k: keyof Mem) => (many[k] - one[k]) / added / 1024;
  const cRss = per(cOne, cMany, 'rssKiB');
  const cUss = per(cOne, cMany, 'ussKiB');
  log(`sessions: ${hosted} of ${added} later sessions in the first one's process; castellan server RSS ${round(cOne.rssKiB / 1024, 1)} -> ${round(cMany.rssKiB / 1024, 1)} MB, tmux ${round(tOne.rssKiB / 1024, 1)} -> ${round(tMany.rssKiB / 1024, 1)} MB`);
  const S = 'sessions';
  const rows: Row[] = [
    { section: S, metric: `each session after the first, server RSS added (mean of ${added})`, unit: 'MB', castellan: cRss, tmux: per(tOne, tMany, 'rssKiB'), digits: 1, target: `< ${TARGET_MB}`, pass: hosted === added && cRss < TARGET_MB },
    { section: S, metric: `each session after the first, server USS added (mean of ${added})`, unit: 'MB', castellan: cUss, tmux: per(tOne, tMany, 'ussKiB'), digits: 1 },
  ];
  return { rows, raw: { added, hosted, castellan: { one: cOne, many: cMany }, tmux: { one: tOne, many: tMany } } };
}
