// Programs that run another command (env, nice, timeout, sudo...): how to find that command in their arguments. Data.

export interface Wrapper {
  /** Options that take a value as the next word (or attached: `-n10`, `--signal=KILL`). */
  valued?: readonly string[];
  /** Options whose value is itself a command line (`env -S 'git push'`, `flock f -c 'git push'`). */
  script?: readonly string[];
  /** `NAME=value` words before the command are assignments (env, sudo). */
  assignments?: boolean;
  /** Operands between the options and the command (timeout's duration, chrt's priority, flock's file). */
  operands?: number;
  /** The command is its remaining words joined into one shell line (watch, ssh's remote command). */
  joined?: boolean;
}

/** Shells: `-c` (alone or in a cluster, `-lc`) makes their first operand a script. */
export const SHELLS: ReadonlySet<string> = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'fish', 'busybox', 'yash', 'posh']);

export const WRAPPERS: Readonly<Record<string, Wrapper>> = {
  env: { valued: ['-u', '--unset', '-C', '--chdir', '-S', '--split-string', '-P', '--default-signal', '--ignore-signal', '--block-signal'], script: ['-S', '--split-string'], assignments: true },
  nice: { valued: ['-n', '--adjustment'] },
  ionice: { valued: ['-c', '--class', '-n', '--classdata', '-p', '-P', '-u'] },
  timeout: { valued: ['-s', '--signal', '-k', '--kill-after'], operands: 1 },
  nohup: {},
  stdbuf: { valued: ['-i', '-o', '-e', '--input', '--output', '--error'] },
  time: { valued: ['-f', '--format', '-o', '--output'] },
  command: {},
  builtin: {},
  exec: { valued: ['-a'] },
  setsid: {},
  xargs: { valued: ['-I', '-i', '-n', '-P', '-L', '-l', '-s', '-d', '-E', '-e', '-a', '--arg-file', '--delimiter', '--max-args', '--max-procs', '--replace', '--max-lines', '--eof'] },
  sudo: { valued: ['-u', '--user', '-g', '--group', '-C', '--close-from', '-D', '--chdir', '-h', '--host', '-p', '--prompt', '-r', '--role', '-t', '--type', '-T', '--command-timeout', '-U', '--other-user', '-R', '--chroot'], assignments: true },
  doas: { valued: ['-u', '-C'] },
  su: { valued: ['-c', '--command', '-s', '--shell', '-g', '--group', '-G', '--supp-group', '-w', '--whitelist-environment'], script: ['-c', '--command'], operands: 1 },
  runuser: { valued: ['-c', '--command', '-s', '--shell', '-g', '--group', '-G', '-u', '--user', '-w'], script: ['-c', '--command'] },
  chrt: { valued: ['-T', '-P', '-D', '--sched-runtime', '--sched-period', '--sched-deadline'], operands: 1 },
  flock: { valued: ['-w', '--timeout', '--wait', '-E', '--conflict-exit-code', '-c', '--command'], script: ['-c', '--command'], operands: 1 },
  taskset: { valued: [], operands: 1 },
  unbuffer: {},
  caffeinate: { valued: ['-t', '-w'] },
  chronic: {},
  ifne: {},
  watch: { valued: ['-n', '--interval', '-d', '--differences', '-q', '--equexit'], joined: true },
  ssh: {
    valued: ['-b', '-c', '-D', '-E', '-e', '-F', '-I', '-i', '-J', '-L', '-l', '-m', '-O', '-o', '-p', '-Q', '-R', '-S', '-W', '-w', '-B'],
    operands: 1,
    joined: true,
  },
  script: { valued: ['-c', '--command', '-E', '--echo', '-T', '--log-timing', '-I', '-O', '-B'], script: ['-c', '--command'] },
  'systemd-run': { valued: ['-p', '--property', '-u', '--unit', '-E', '--setenv', '--uid', '--gid', '-M', '--machine', '--description', '--slice', '--working-directory'] },
  strace: { valued: ['-e', '-o', '-p', '-s', '-u', '-a', '-b', '-E', '-I', '-O', '-P', '-S', '-X'] },
  ltrace: { valued: ['-e', '-o', '-p', '-s', '-u', '-a', '-A', '-D', '-F', '-l', '-n', '-x'] },
  firejail: {},
  proxychains: { valued: ['-f'] },
  proxychains4: { valued: ['-f'] },
  torsocks: { valued: ['-u', '-p', '-a', '-P'] },
  nsenter: { valued: ['-t', '--target', '-S', '--setuid', '-G', '--setgid', '-r', '--root', '-w', '--wd'] },
  unshare: { valued: ['--map-user', '--map-group', '-R', '--root', '-w', '--wd', '-S', '--setuid', '-G', '--setgid'] },
  chroot: { valued: ['--userspec', '--groups'], operands: 1 },
  npx: { valued: ['-p', '--package', '-c', '--call'], script: ['-c', '--call'] },
};
