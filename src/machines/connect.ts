// Opens a socket client on another machine: `ssh -T TARGET castellan machine bridge`, the bridge's hello, then the
// same newline-JSON protocol over the ssh child's stdio. Every wait is bounded and the ssh child dies with the client.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { Duplex } from 'node:stream';
import { RpcClient } from '../platform/rpc-client.js';
import { RpcError } from '../platform/rpc-error.js';
import { MachineError } from './errors.js';
import { type Hello, incompatibility, MAX_HELLO_BYTES, parseHello } from './hello.js';
import type { MachineProfile } from './profile.js';
import { cleanRemote, cleanRemoteDeep } from './sanitize.js';
import { sshArgv, type SshArgvOptions } from './ssh-argv.js';

export interface ConnectOptions extends SshArgvOptions {
  /** The ssh program (default `ssh`). */
  ssh?: string;
  env?: NodeJS.ProcessEnv;
  /** From spawning ssh to the bridge's hello (default 10 s). */
  deadlineMs?: number;
  /** Ping over a quiet link this often, so a stalled remote server is noticed (0: never; default 10 s). */
  probeMs?: number;
}

export interface MachineClient {
  client: RpcClient;
  hello: Hello;
  /** The ssh child's pid (tests kill it to prove a lost link fails cleanly). */
  pid: number | undefined;
}

/** What a login shell may print before the hello (a banner, a noisy rc file): skipped, up to this much. */
const MAX_PREAMBLE_BYTES = 64 * 1024;
const STDERR_KEEP = 4096;

const INSTALL_HINT = 'install it there (npm install -g castellan) so that `castellan` is on the PATH of a non-interactive ssh command';

function lastLine(s: string): string {
  return cleanRemote(s.trim().split('\n').filter(Boolean).pop() ?? '', 300);
}

/** Why ssh ended before a hello, as a MachineError the user can act on. */
function exitError(p: MachineProfile, code: number | null, signal: string | null, stderr: string): MachineError {
  const said = lastLine(stderr);
  if (code === 127 || /castellan: (command )?not found|castellan: No such file|not found: castellan/i.test(stderr)) {
    return new MachineError(p.name, 'machine_not_installed', `castellan is not installed on ${p.target} (machine ${p.name}): ${INSTALL_HINT}`);
  }
  if (/unknown command "machine bridge"|unknown command/i.test(stderr)) {
    return new MachineError(p.name, 'machine_incompatible', `castellan on ${p.target} (machine ${p.name}) is too old to bridge (no \`castellan machine bridge\`): upgrade it there (npm install -g castellan)`);
  }
  if (code === 255) return new MachineError(p.name, 'machine_unreachable', `machine ${p.name} (${p.target}) is unreachable: ${said || 'ssh failed'}`);
  return new MachineError(p.name, 'machine_unreachable', `machine ${p.name}: ssh ended before castellan answered (${signal ? `signal ${signal}` : `exit ${code}`})${said ? `: ${said}` : ''}`);
}

/** Relabels a failed request so the user sees which machine it was, with the remote's text made printable. */
function relabel(p: MachineProfile, e: unknown, stderr: () => string): unknown {
  if (!(e instanceof RpcError)) return e;
  if (e.code === 'shutting_down') {
    const said = lastLine(stderr());
    return new MachineError(p.name, 'machine_unreachable', `connection to machine ${p.name} lost${said ? ` (${said})` : ''}`);
  }
  return new RpcError(e.code, `machine ${p.name}: ${cleanRemote(e.message, 1000)}`, e.data);
}

export function connectMachine(p: MachineProfile, o: ConnectOptions = {}): Promise<MachineClient> {
  if (p.disabled) return Promise.reject(new MachineError(p.name, 'machine_disabled', `machine ${p.name} is disabled (castellan machine enable ${p.name})`));
  let argv: string[];
  try {
    argv = sshArgv(p, o);
  } catch (e) {
    return Promise.reject(new MachineError(p.name, 'machine_unknown', (e as Error).message));
  }
  const deadlineMs = o.deadlineMs ?? 10_000;
  return new Promise((resolve, reject) => {
    let child: ChildProcessWithoutNullStreams;
    try {
      child = spawn(o.ssh ?? 'ssh', argv, { env: o.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    } catch (e) {
      reject(new MachineError(p.name, 'no_ssh', `cannot run ssh: ${(e as Error).message}`));
      return;
    }
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => {
      stderr = (stderr + d).slice(-STDERR_KEEP);
    });
    child.stdin.on('error', () => {
      /* a dead ssh: surfaced through its exit */
    });
    let settled = false;
    let preamble = Buffer.alloc(0);
    const fail = (e: MachineError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.stdout.off('data', onData);
      child.kill('SIGKILL');
      reject(e);
    };
    const timer = setTimeout(() => {
      const said = lastLine(stderr);
      fail(new MachineError(p.name, 'machine_unreachable', `machine ${p.name} (${p.target}) did not answer within ${deadlineMs} ms${said ? `: ${said}` : ''}`));
    }, deadlineMs);
    child.once('error', (e: NodeJS.ErrnoException) => {
      fail(new MachineError(p.name, 'no_ssh', e.code === 'ENOENT' ? `ssh is not installed here (${o.ssh ?? 'ssh'} not found): install OpenSSH's client` : `cannot run ssh: ${e.message}`));
    });
    // 'close', not 'exit': it comes after stdout and stderr are read to their end, so a hello (or the reason ssh
    // gives, usually its last stderr line) written just before exiting is never lost to the race.
    child.once('close', (code, signal) => fail(exitError(p, code, signal, stderr)));
    const onData = (chunk: Buffer) => {
      preamble = Buffer.concat([preamble, chunk]);
      for (let nl = preamble.indexOf(10); nl !== -1; nl = preamble.indexOf(10)) {
        const line = preamble.subarray(0, nl).toString('utf8').replace(/\r$/, '');
        preamble = preamble.subarray(nl + 1);
        const hello = parseHello(line);
        if (hello) return onHello(hello);
      }
      if (preamble.length > MAX_PREAMBLE_BYTES || preamble.length > MAX_HELLO_BYTES * 4) {
        fail(new MachineError(p.name, 'machine_incompatible', `machine ${p.name}: the remote side printed ${MAX_PREAMBLE_BYTES} bytes without a castellan bridge hello (a shell rc file printing output, or not castellan)`));
      }
    };
    const onHello = (hello: Hello) => {
      if (settled) return;
      const bad = incompatibility(hello);
      const version = cleanRemote(hello.server.version ?? hello.castellan_bridge.version, 64);
      if (bad) return fail(new MachineError(p.name, 'machine_incompatible', `castellan ${version} on machine ${p.name} cannot talk to this one: ${bad}; install matching versions (npm install -g castellan) on both sides`));
      if (hello.server.state === 'not_running') {
        return fail(new MachineError(p.name, 'not_running', `no castellan server runs on machine ${p.name}${p.session ? ` for session ${p.session}` : ''}: start one there (ssh ${p.target} castellan${p.session ? ` --session ${p.session}` : ''} server start)`));
      }
      if (hello.server.state === 'not_answering') return fail(new MachineError(p.name, 'timeout', `the castellan server on machine ${p.name} does not answer (stalled?)`));
      settled = true;
      clearTimeout(timer);
      child.stdout.off('data', onData);
      child.stdout.pause();
      if (preamble.length) child.stdout.unshift(preamble);
      resolve(wrap(p, child, hello, o.probeMs ?? 10_000, () => stderr));
    };
    child.stdout.on('data', onData);
  });
}

function wrap(p: MachineProfile, child: ChildProcessWithoutNullStreams, hello: Hello, probeMs: number, stderr: () => string): MachineClient {
  // Not Duplex.from(stdout, stdin): Node destroys a child's stdin when the child exits, and that destroyed the whole
  // stream, so a reply ssh wrote just before exiting could be lost to the race between its exit and its stdout (seen
  // under load). Here only stdout's end ends what is read; writes to a gone stdin are dropped (its close says why).
  const stream = new Duplex({
    read: () => void child.stdout.resume(),
    write: (chunk: Buffer, _enc, done) => {
      if (child.stdin.destroyed || child.stdin.writableEnded) return done();
      child.stdin.write(chunk, () => done());
    },
    final: (done) => {
      child.stdin.end();
      done();
    },
  });
  child.stdin.on('error', () => undefined);
  child.stdout.on('data', (d: Buffer) => {
    if (!stream.push(d)) child.stdout.pause();
  });
  child.stdout.once('end', () => stream.push(null));
  child.stdout.resume();
  stream.on('error', () => {
    /* surfaced through the client's close */
  });
  const client = RpcClient.over(stream);
  child.removeAllListeners('close');
  // After the last reply is read (see 'close' above), never before: ssh's stdout has ended by then, but what it
  // said last may still sit in this stream's buffer on its way to the client (seen under load), so end after it.
  child.once('close', () => {
    if (stream.readableEnded) return stream.destroy();
    stream.once('end', () => stream.destroy());
    setTimeout(() => stream.destroy(), 2000).unref();
  });
  let probe: NodeJS.Timeout | undefined;
  client.onClosed(() => {
    if (probe) clearInterval(probe);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  });
  const request = client.request.bind(client);
  // Everything another host sends is cleaned where it enters: results and pushed frames carry colours, never commands.
  client.request = (<T>(method: string, params?: unknown, opts?: { timeoutMs?: number; id?: string } | number) =>
    request<T>(method, params, opts).then(
      (r) => cleanRemoteDeep(r),
      (e: unknown) => {
        throw relabel(p, e, stderr);
      },
    )) as typeof client.request;
  const onMessage = client.onMessage.bind(client);
  client.onMessage = (cb) => onMessage((m) => cb(cleanRemoteDeep(m)));
  if (probeMs > 0) {
    // A link can look alive while the server behind it is stopped: a ping that gets no answer ends the connection.
    probe = setInterval(() => {
      request('ping', {}, { timeoutMs: Math.max(1000, Math.min(probeMs, 5000)) }).catch((e: unknown) => {
        if (e instanceof RpcError && e.code === 'timeout') {
          stderr = () => `the castellan server on machine ${p.name} stopped answering`;
          client.close();
        }
      });
    }, probeMs);
    probe.unref();
  }
  return { client, hello, pid: child.pid };
}
