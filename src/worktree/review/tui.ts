// `castellan review`: a keyed terminal program over one worktree: files and +/-, the diff in the user's pager, and the actions.
import { spawn } from 'node:child_process';
import { KEYS, outcome, pagerCommand, reviewLines, type ReviewData } from './model.js';

export interface ReviewIo {
  call<T>(method: string, params: Record<string, unknown>): Promise<T>;
  target: { pane_id?: string; id?: string };
  env: NodeJS.ProcessEnv;
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
}

/** Runs until `q` (or the worktree is discarded); resolves with the exit code. */
export async function runReview(io: ReviewIo): Promise<number> {
  const { stdin, stdout } = io;
  let data: ReviewData | undefined;
  let note = '';
  let busy = false;
  const load = async () => {
    try {
      data = await io.call<ReviewData>('worktree.review', { ...io.target });
    } catch (e) {
      note = (e as Error).message;
    }
  };
  const draw = () => {
    const rows = stdout.rows || 24;
    const cols = stdout.columns || 80;
    const lines = data ? reviewLines(data, { rows, cols, note }) : [note || 'loading…', '', KEYS];
    stdout.write(`\x1b[H\x1b[2J${lines.join('\r\n')}`);
  };
  const ask = (q: string) =>
    new Promise<string>((resolve) => {
      let buf = '';
      stdout.write(`\r\n${q}`);
      const on = (b: Buffer) => {
        for (const ch of b.toString('utf8')) {
          if (ch === '\r' || ch === '\n') return done(buf);
          if (ch === '\x1b' || ch === '\x03') return done('');
          if (ch === '\x7f') buf = buf.slice(0, -1);
          else if (ch >= ' ') buf += ch;
        }
        stdout.write(`\r\x1b[K${q}${buf}`);
      };
      const done = (v: string) => {
        stdin.off('data', on);
        resolve(v);
      };
      stdin.on('data', on);
    });
  const act = async (method: string, name: string, params: Record<string, unknown> = {}) => {
    try {
      note = outcome(name, await io.call(method, { ...io.target, ...params }));
    } catch (e) {
      note = `${name}: ${(e as Error).message}`;
    }
  };
  const pager = async () => {
    let diff = '';
    try {
      diff = (await io.call<{ diff?: string }>('worktree.review', { ...io.target, diff: true, color: !io.env.CASTELLAN_DIFF_PAGER })).diff ?? '';
    } catch (e) {
      note = (e as Error).message;
      return;
    }
    stdin.setRawMode?.(false);
    stdout.write('\x1b[H\x1b[2J');
    // The user's own pager (their environment, not the repository's): a shell command line, as git runs it.
    const t0 = Date.now();
    await new Promise<void>((resolve) => {
      const p = spawn('/bin/sh', ['-c', pagerCommand(io.env)], { stdio: ['pipe', 'inherit', 'inherit'], env: { ...io.env, LESS: io.env.LESS ?? 'RX' } });
      p.stdin.on('error', () => undefined);
      p.stdin.end(diff || '(no changes against the base)\n');
      p.on('exit', () => resolve());
      p.on('error', () => resolve());
    });
    stdin.setRawMode?.(true);
    // A pager that quits at once on a short diff (less -F, delta's default) would leave it on screen for no time at all.
    if (Date.now() - t0 < 1500) {
      stdout.write('\r\n(end of the diff: press a key to go back to the review)');
      await new Promise((r) => stdin.once('data', r));
    }
  };

  stdin.setRawMode?.(true);
  stdin.resume();
  stdout.write('\x1b[?1049h\x1b[?25l');
  await load();
  draw();
  const onResize = () => draw();
  stdout.on('resize', onResize);
  try {
    for (;;) {
      const key = await new Promise<string>((r) => stdin.once('data', (b: Buffer) => r(b.toString('utf8'))));
      if (busy) continue;
      busy = true;
      try {
        if (key === 'q' || key === '\x03' || key === '\x1b') return 0;
        if (key === 'd') await pager();
        else if (key === 'c') {
          const msg = await ask(`commit message (Enter commits, Esc cancels): `);
          if (msg.trim()) await act('worktree.commit', 'commit', { message: msg.trim() });
          else note = 'commit cancelled';
        } else if (key === 'm') {
          note = 'merging…';
          draw();
          await act('worktree.merge', 'merge');
        } else if (key === 'r') {
          note = 'rebasing…';
          draw();
          await act('worktree.rebase', 'rebase');
        } else if (key === 'x') {
          const yes = await ask(`discard ${data?.branch ?? 'this worktree'} and every change in it? type yes: `);
          if (yes.trim() === 'yes') {
            await act('worktree.discard', 'discard');
            if (!note.startsWith('discard:')) return 0;
          } else note = 'discard cancelled';
        } else if (key !== 'g') continue;
        await load();
        draw();
      } finally {
        busy = false;
      }
    }
  } finally {
    stdout.off('resize', onResize);
    stdout.write('\x1b[?25h\x1b[?1049l');
    stdin.setRawMode?.(false);
    stdin.pause();
  }
}
