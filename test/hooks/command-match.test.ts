// Command rules see through wrappers and shells: one matcher for every gated path, judged on a parsed command line.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { commandsRun, runsCommand } from '../../src/hooks/command-match.js';

/** argv as a caller gives it (exec's argv, or an agent's `sh -c` line), and whether `git push` must match. Grow it. */
const GIT_PUSH: Array<[string, readonly string[], boolean]> = [
  ['plain', ['git', 'push'], true],
  ['absolute path', ['/usr/bin/git', '-C', '.', 'push'], true],
  ['git global options', ['git', '-c', 'core.pager=cat', '--no-pager', '--git-dir=.git', 'push'], true],
  ['env', ['env', 'git', 'push'], true],
  ['env -i with assignments', ['env', '-i', 'PATH=/usr/bin', 'HOME=/x', 'git', 'push'], true],
  ['env -u', ['env', '-u', 'GIT_DIR', 'git', 'push'], true],
  ['env -S string', ['env', '-S', 'git push origin'], true],
  ['nice', ['nice', 'git', 'push'], true],
  ['nice -n 10', ['nice', '-n', '10', 'git', 'push'], true],
  ['ionice', ['ionice', '-c', '3', 'git', 'push'], true],
  ['timeout', ['timeout', '5', 'git', 'push'], true],
  ['timeout with options', ['timeout', '-s', 'KILL', '-k', '1', '5s', 'git', 'push'], true],
  ['nohup', ['nohup', 'git', 'push'], true],
  ['stdbuf', ['stdbuf', '-oL', 'git', 'push'], true],
  ['time', ['time', '-p', 'git', 'push'], true],
  ['command', ['command', 'git', 'push'], true],
  ['exec', ['exec', '-a', 'x', 'git', 'push'], true],
  ['setsid', ['setsid', 'git', 'push'], true],
  ['xargs', ['xargs', '-n1', 'git', 'push'], true],
  ['sudo', ['sudo', '-u', 'root', 'git', 'push'], true],
  ['doas', ['doas', 'git', 'push'], true],
  ['chrt', ['chrt', '-f', '10', 'git', 'push'], true],
  ['flock with a command', ['flock', '/tmp/l', 'git', 'push'], true],
  ['flock -c', ['flock', '/tmp/l', '-c', 'git push'], true],
  ['su -c', ['su', '-c', 'git push', 'me'], true],
  ['wrappers stacked', ['nohup', 'nice', 'timeout', '5', 'env', 'A=1', 'git', 'push'], true],
  ['an unknown wrapper', ['strace', '-f', '-o', '/dev/null', 'git', 'push'], true],
  ['watch joins its words', ['watch', '-n', '1', 'git push'], true],
  ['ssh runs it remotely', ['ssh', 'host', 'git push'], true],
  ['sh -c', ['sh', '-c', 'git push'], true],
  ['bash -lc', ['bash', '-lc', 'cd x && git push'], true],
  ['bash -e -c', ['/bin/bash', '-e', '-c', 'true; git push'], true],
  ['sh -c inside sh -c', ['sh', '-c', `bash -c 'git push'`], true],
  ['eval', ['sh', '-c', `eval "git push"`], true],
  ['quotes inside the name', ['sh', '-c', `g"i"t 'push'`], true],
  ['backslash inside the name', ['sh', '-c', 'g\\it push'], true],
  ['command substitution', ['sh', '-c', 'echo $(git push)'], true],
  ['backticks', ['sh', '-c', 'echo `git push`'], true],
  ['subshell and pipeline', ['sh', '-c', '(cd x; git push) | cat'], true],
  ['here-string to a shell', ['sh', '-c', `bash <<< 'git push'`], true],
  ['heredoc to a shell', ['sh', '-c', 'bash <<EOF\ngit push\nEOF'], true],
  ['piped into a shell', ['sh', '-c', `echo 'git push' | sh`], true],
  ['alias', ['sh', '-c', `alias g='git push'; g`], true],
  ['alias for the name', ['sh', '-c', `alias g=git; g push`], true],
  ['a variable as the name', ['sh', '-c', 'G=git; $G push'], true],
  ['a script only known when it runs', ['bash', '-c', '$CMD'], true],
  ['find -exec sh -c', ['find', '.', '-exec', 'sh', '-c', 'git push', ';'], true],
  ['xargs sh -c', ['sh', '-c', `ls | xargs -I{} sh -c 'git push {}'`], true],
  ['a line that does not parse', ['sh', '-c', 'git push "unterminated'], true],
  ['errs toward matching: echo', ['echo', 'git', 'push'], true],
  ['git log', ['git', 'log', '--oneline'], false],
  ['gitx', ['gitx', 'push'], false],
  ['push as a quoted message', ['sh', '-c', `git commit -m "do not git push yet"`], false],
  ['grep for the words', ['sh', '-c', `grep -r "git push" docs`], false],
  ['git pull', ['env', 'git', 'pull'], false],
];

describe('command rules: one parsed matcher', () => {
  for (const [name, argv, want] of GIT_PUSH) {
    test(`${want ? 'matches' : 'does not match'}: ${name}`, () => assert.equal(runsCommand(argv, 'git push'), want, JSON.stringify(argv)));
  }

  test('every simple command of a line is listed, nested ones included', () => {
    const { commands } = commandsRun(['sh', '-c', 'a 1 && (b 2; c $(d 3))']);
    const names = commands.map((c) => c[0]);
    for (const n of ['sh', 'a', 'b', 'c', 'd']) assert.ok(names.includes(n), `${n} in ${JSON.stringify(names)}`);
  });

  test('sh -c nested past the depth limit counts as matching', () => {
    assert.equal(runsCommand(['sh', '-c', `${'eval '.repeat(12)}true`], 'git push'), true);
    assert.equal(runsCommand(['sh', '-c', `${'eval '.repeat(3)}true`], 'git push'), false);
  });

  test('a large line is judged in bounded CPU time', () => {
    const c0 = process.cpuUsage();
    assert.equal(runsCommand(['sh', '-c', 'echo hi; '.repeat(20_000)], 'git push'), false);
    assert.equal(runsCommand(['sh', '-c', `${'x'.repeat(400_000)} git push`], 'git push'), true);
    const cpu = process.cpuUsage(c0);
    assert.ok((cpu.user + cpu.system) / 1000 < 3000, `took ${(cpu.user + cpu.system) / 1000} ms of CPU`);
  });

  test('binary and control characters in a line do not throw', () => {
    assert.doesNotThrow(() => runsCommand(['sh', '-c', '\u0000\u001b[2J git\u0000 push \uffff'], 'git push'));
    assert.doesNotThrow(() => runsCommand([], 'git push'));
    assert.equal(runsCommand(['git', 'push'], '   '), false);
  });
});
