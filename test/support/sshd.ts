// A private OpenSSH server for the machine tests: its own host key, a user key pair, a high port on 127.0.0.1, and
// an ssh wrapper (its own config, known_hosts and key) for castellan to use as CASTELLAN_SSH. Cleanup kills sshd and
// every session process it forked.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { waitFor } from './wait-for.js';

const SSHD = ['/usr/sbin/sshd', '/usr/local/sbin/sshd'].find((p) => existsSync(p));

/** Why the ssh tests cannot run here, or undefined when they can. */
export function sshdSkipReason(): string | undefined {
  if (!SSHD) return 'no sshd binary (install openssh-server; .ci/run does when it runs as root)';
  for (const tool of ['ssh', 'ssh-keygen']) {
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    } catch {
      return `no ${tool} binary (install openssh-client)`;
    }
  }
  // sshd running as root needs its privilege separation directory; only root can make it.
  if (process.getuid?.() === 0 && !existsSync('/run/sshd')) {
    try {
      mkdirSync('/run/sshd', { mode: 0o755 });
    } catch {
      return 'sshd needs /run/sshd and it cannot be made';
    }
  }
  return undefined;
}

export interface Sshd {
  dir: string;
  port: number;
  /** The Host alias the wrapper's config knows (`castellan-test`). */
  host: string;
  /** A script that runs ssh with this server's client config: give it to castellan as CASTELLAN_SSH. */
  sshWrapper: string;
  /** Adds a Host alias to the client config (say, one pointing at a port that never answers). */
  addHost(alias: string, port: number): void;
  /** Pids of sshd's session processes (children of the listener). */
  sessionPids(): number[];
  stop(): Promise<void>;
}

/** A loopback port nothing listens on once it returns (bound, then closed). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** Direct children of a pid (read from /proc: test support, Linux only, as temp-env.ts is). */
export function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(name));
    } catch {
      /* gone */
    }
  }
  return out;
}

function descendants(pid: number): number[] {
  const all: number[] = [];
  const queue = [pid];
  while (queue.length) {
    for (const c of childrenOf(queue.shift()!)) {
      all.push(c);
      queue.push(c);
    }
  }
  return all;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
};

/**
 * Starts sshd. `remotePath` is put first on the PATH of every ssh session (where the test's remote `castellan`
 * wrapper lives), through sshd_config's SetEnv.
 */
export async function startSshd(opts: { remotePath: string; variants?: Record<string, string[]>; nice?: number }): Promise<Sshd> {
  const dir = mkdtempSync('/tmp/cst-sshd-');
  const user = userInfo().username;
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'castellan-test-host', '-f', join(dir, 'host_key')]);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'castellan-test-user', '-f', join(dir, 'id')]);
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(join(dir, 'id.pub')));
  chmodSync(join(dir, 'authorized_keys'), 0o600);
  const hostPub = readFileSync(join(dir, 'host_key.pub'), 'utf8').trim().split(' ').slice(0, 2).join(' ');
  let lastErr = '';
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    // Each variant listens on a port of its own and gets sshd_config lines under `Match LocalPort` (a ForceCommand,
    // another PATH) and a Host alias castellan-test-NAME: one sshd plays several differently broken machines.
    const variants = Object.entries(opts.variants ?? {});
    const variantPorts: number[] = [];
    for (let i = 0; i < variants.length; i++) variantPorts.push(await freePort());
    writeFileSync(
      join(dir, 'sshd_config'),
      [
        `Port ${port}`,
        ...variantPorts.map((p) => `Port ${p}`),
        'ListenAddress 127.0.0.1',
        `HostKey ${join(dir, 'host_key')}`,
        `PidFile ${join(dir, 'sshd.pid')}`,
        `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
        'StrictModes no',
        'UsePAM no',
        'PermitRootLogin prohibit-password',
        'PubkeyAuthentication yes',
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        `AllowUsers ${user}`,
        // HOME too: bash run by sshd reads ~/.bashrc even for a command, and a developer's (pyenv init, a stale lock:
        // 6-60 s) would stall every connection; the remote castellan wrapper sets its own HOME.
        `SetEnv PATH=${opts.remotePath}:/usr/local/bin:/usr/bin:/bin HOME=${dir}`,
        'PrintMotd no',
        'LogLevel ERROR',
        ...variants.flatMap(([, lines], i) => [`Match LocalPort ${variantPorts[i]}`, ...lines.map((l) => `  ${l}`)]),
        '',
      ].join('\n'),
    );
    writeFileSync(join(dir, 'known_hosts'), [port, ...variantPorts].map((p) => `[127.0.0.1]:${p} ${hostPub}\n`).join(''));
    const hostBlock = (alias: string, p: number) =>
      [
        `Host ${alias}`,
        '  HostName 127.0.0.1',
        `  Port ${p}`,
        `  User ${user}`,
        `  IdentityFile ${join(dir, 'id')}`,
        '  IdentitiesOnly yes',
        `  UserKnownHostsFile ${join(dir, 'known_hosts')}`,
        '  GlobalKnownHostsFile /dev/null',
        '  StrictHostKeyChecking yes',
        '  CheckHostIP no',
        '  ControlMaster no',
        '  LogLevel ERROR',
        '',
      ].join('\n');
    writeFileSync(join(dir, 'ssh_config'), hostBlock('castellan-test', port) + variants.map(([name], i) => hostBlock(`castellan-test-${name}`, variantPorts[i])).join(''));
    const wrapper = join(dir, 'ssh');
    writeFileSync(wrapper, `#!/bin/sh\nexec ssh -F ${join(dir, 'ssh_config')} "$@"\n`);
    chmodSync(wrapper, 0o755);
    const argv = [SSHD!, '-D', '-e', '-f', join(dir, 'sshd_config')];
    // `nice` (POSIX) execs sshd in place: the pid is sshd's, and every session it forks inherits the lower priority.
    const child: ChildProcess = opts.nice ? spawn('nice', ['-n', String(opts.nice), ...argv], { stdio: ['ignore', 'ignore', 'pipe'] }) : spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    let exited = false;
    child.once('exit', () => (exited = true));
    try {
      await waitFor(
        () =>
          exited ||
          new Promise<boolean>((resolve) => {
            const s = net.connect(port, '127.0.0.1');
            s.once('connect', () => {
              s.destroy();
              resolve(true);
            });
            s.once('error', () => resolve(false));
          }),
        { timeoutMs: 5000, intervalMs: 25, message: 'sshd to listen' },
      );
    } catch (e) {
      child.kill('SIGKILL');
      throw e;
    }
    if (exited) {
      lastErr = stderr;
      continue;
    }
    const pid = child.pid!;
    const self: Sshd = {
      dir,
      port,
      host: 'castellan-test',
      sshWrapper: wrapper,
      addHost(alias, p) {
        writeFileSync(join(dir, 'ssh_config'), readFileSync(join(dir, 'ssh_config'), 'utf8') + hostBlock(alias, p));
      },
      sessionPids: () => descendants(pid),
      async stop() {
        const pids = [pid, ...descendants(pid)];
        for (const p of pids) {
          try {
            process.kill(p, 'SIGKILL');
          } catch {
            /* gone */
          }
        }
        await waitFor(() => pids.every((p) => !alive(p)), { timeoutMs: 5000, message: 'sshd and its sessions to die' }).catch(() => undefined);
        rmSync(dir, { recursive: true, force: true });
      },
    };
    return self;
  }
  rmSync(dir, { recursive: true, force: true });
  throw new Error(`sshd would not start: ${lastErr.slice(-500)}`);
}
