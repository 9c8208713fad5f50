// `[session] relaunch` against hostile snapshots (issue 28 item 7): the whole recorded command line must be an entry's,
// the program recorded either by its bare name or at the very file PATH finds for it, and what is typed is the entry
// by name, so the pane's shell runs the PATH program. A program elsewhere that shares a base name (`evil/htop`,
// `../htop`, `/tmp/x/htop`), appended arguments, or a forged line never runs a file that is not PATH's.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onPath } from '../../src/restore/on-path.js';
import { planRestore, type PlanContext } from '../../src/restore/plan.js';
import { SNAPSHOT_VERSION, type Snapshot } from '../../src/restore/schema.js';

describe('relaunch: the whole command line, the program from PATH', () => {
  let root: string;
  let bin: string;
  let evil: string;
  let marker: string;
  let ctx: PlanContext;
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'cst-rl-'));
    bin = join(root, 'bin');
    evil = join(root, 'evil');
    marker = join(root, 'ran');
    mkdirSync(bin);
    mkdirSync(evil);
    // Each program notes which file ran: PATH's, or the one the snapshot named.
    for (const [dir, who] of [[bin, 'path'], [evil, 'evil']] as const)
      for (const name of ['htop', 'npm']) {
        writeFileSync(join(dir, name), `#!/bin/sh\necho ${who} ${name} "$@" >> '${marker}'\n`);
        chmodSync(join(dir, name), 0o755);
      }
    // Not executable: a PATH search passes over it, as a shell's does.
    writeFileSync(join(evil, 'top'), '#!/bin/sh\n');
    const pathEnv = `relative-dir::${evil}-missing:${bin}`;
    ctx = { shell: ['/bin/sh'], relaunch: ['htop', 'htop -d 5', 'npm run dev'], isDir: () => true, fallbackCwd: '/', onPath: (n, p) => onPath(n, p, pathEnv) };
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  const snapshot = (foreground: string[]): Snapshot => ({
    version: SNAPSHOT_VERSION,
    session: 'default',
    savedAt: Date.now(),
    cwd: evil,
    size: { cols: 80, rows: 24 },
    windows: [{ id: 'w1', layout: { kind: 'leaf', pane: 'w1:p1' }, active: 'w1:p1', panes: [{ id: 'w1:p1', command: ['/bin/sh'], cwd: evil, kind: 'program', foreground, inShell: true }] }],
  });
  const typed = (fg: string[]) => planRestore(snapshot(fg), ctx).panes.get('w1:p1')!.typed;
  /** Runs the typed line as the pane's shell would: in the snapshot's directory (evil's), with PATH of bin only. */
  const run = (line: string): string => {
    rmSync(marker, { force: true });
    const r = spawnSync('/bin/sh', ['-c', line], { cwd: evil, env: { PATH: `${bin}:/usr/bin:/bin` }, encoding: 'utf8', timeout: 10_000 });
    assert.equal(r.status, 0, r.stderr);
    return existsSync(marker) ? readFileSync(marker, 'utf8') : '';
  };

  test('htop recorded by its name, or at the path PATH finds for it: relaunched, by name', () => {
    assert.equal(typed(['htop']), 'htop');
    // The choice: a path is the same program when it is the very file (device and inode) the name finds on PATH; the
    // line typed is still the name, so the shell's own search picks the file.
    assert.equal(typed([join(bin, 'htop')]), 'htop');
    assert.equal(typed([join(bin, '..', 'bin', 'htop')]), 'htop');
    assert.equal(typed([join(bin, 'htop'), '-d', '5']), 'htop -d 5');
    assert.equal(run(typed([join(bin, 'htop'), '-d', '5'])!), 'path htop -d 5\n');
    // A script its interpreter ran (`#!/usr/bin/env node`) is its script's command line.
    assert.equal(typed(['node', join(bin, 'npm'), 'run', 'dev']), 'npm run dev');
    assert.equal(run(typed(['node', join(bin, 'npm'), 'run', 'dev'])!), 'path npm run dev\n');
  });

  test('htop at another path (absolute, relative, ../, through ..): not relaunched, noted', () => {
    for (const fg of [[join(evil, 'htop')], ['evil/htop'], ['./htop'], ['../evil/htop'], [`${bin}/../evil/htop`], ['/nonexistent/htop']]) {
      const p = planRestore(snapshot(fg), ctx).panes.get('w1:p1')!;
      assert.equal(p.typed, undefined, JSON.stringify(fg));
      assert.match(p.note, /not relaunched; add it to \[session\] relaunch/);
    }
    // A symlink to the PATH file is that file: relaunched, and by name, so the link itself is never what runs.
    symlinkSync(join(bin, 'htop'), join(evil, 'link-htop'));
    assert.equal(typed([join(evil, 'link-htop')]), undefined, 'another base name is another entry');
  });

  test('arguments appended, or an entry only a prefix of the line: not relaunched', () => {
    assert.equal(typed(['htop', '-d', '1']), undefined);
    assert.equal(typed(['htop', '-d', '5', ';', 'touch', marker]), undefined);
    assert.equal(typed(['htop', '-d 5']), undefined, 'one argument with a space is not two words');
    assert.equal(typed(['npm', 'run', 'dev', '--', 'x']), undefined);
    assert.equal(typed(['npm', 'run']), undefined);
    assert.equal(typed(['node', join(evil, 'npm'), 'run', 'dev']), undefined, 'a script at another path');
    assert.equal(typed([join(evil, 'node'), join(bin, 'npm'), 'run', 'dev']), undefined, 'an interpreter at another path');
  });

  test('a forged snapshot naming htop with extra or hostile words never runs a file that is not PATH\'s', () => {
    const forged = [
      ['htop', '$(touch pwned)'],
      ['htop;', 'touch', 'pwned'],
      ['htop\n./htop'],
      ['./htop', '-d', '5'],
      [join(evil, 'htop'), '-d', '5'],
      ['sh', join(evil, 'htop')],
      ['node', './npm', 'run', 'dev'],
      ['htop'],
      [join(bin, 'htop')],
    ];
    for (const fg of forged) {
      const line = typed(fg);
      if (line === undefined) continue;
      // Whatever was typed ran PATH's program, never the snapshot directory's.
      const ran = run(line);
      assert.match(ran, /^path htop/, `${JSON.stringify(fg)} typed ${line} ran ${ran}`);
    }
    assert.equal(existsSync(join(evil, 'pwned')), false);
  });

  test('without a PATH resolver (or PATH naming no such program), only a bare name matches', () => {
    const bare: PlanContext = { ...ctx, onPath: undefined };
    assert.equal(planRestore(snapshot(['htop']), bare).panes.get('w1:p1')!.typed, 'htop');
    assert.equal(planRestore(snapshot([join(bin, 'htop')]), bare).panes.get('w1:p1')!.typed, undefined);
    assert.equal(onPath('htop', join(bin, 'htop'), undefined), false);
    assert.equal(onPath('htop', join(bin, 'htop'), `.:${evil}`), false, 'relative PATH entries are skipped; evil/htop is another file');
    assert.equal(onPath('top', join(evil, 'top'), evil), false, 'not executable: not what a PATH search finds');
    assert.equal(onPath('../bin/htop', join(bin, 'htop'), evil), false);
  });
});
