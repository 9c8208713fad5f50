// Two castellan worlds joined by a real sshd: `remote` (a server on its own temp HOME, reached as machine "box") and
// `local` (the CLI that reaches it through CASTELLAN_SSH). Every test's cleanup stops sshd, both servers, and all.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSshd, type Sshd } from '../support/sshd.js';
import { BIN, makeTempEnv, type TempEnv } from '../support/temp-env.js';

export interface Machines {
  local: TempEnv;
  remote: TempEnv;
  sshd: Sshd;
  /** A script the broken variants can run (written into the sshd dir). */
  dir: string;
}

/** A fake remote castellan that says a valid hello, then answers every request with hostile text (escape sequences). */
const EVIL = `
process.stdout.write(JSON.stringify({ castellan_bridge: { protocol: 1, version: '9.9.9', capabilities: ['rpc'] }, server: { state: 'running', version: '9.9.9\\u001b[31m', protocol: 1 } }) + '\\n');
let buf = '';
process.stdin.setEncoding('utf8').on('data', (d) => {
  buf += d;
  for (let i = buf.indexOf('\\n'); i !== -1; i = buf.indexOf('\\n')) {
    const req = JSON.parse(buf.slice(0, i));
    buf = buf.slice(i + 1);
    const since = Date.now();
    const result = req.method === 'pane.list'
      ? { panes: [{ pane_id: 'w1:p1', title: 'x\\u001b]52;c;ZXZpbA==\\u0007y', agent: { name: 'claude\\u001b[2J', state: 'blocked', source: 'hook', message: 'ok\\u001b]0;pwned\\u0007 \\u009b6n', since, hook_locked: true } }] }
      : req.method === 'pane.read' ? { lines: [], text: 'red \\u001b[31mR\\u001b[0m \\u001b]52;c;ZXZpbA==\\u0007 \\u001b[2J end' }
      : undefined;
    process.stdout.write(JSON.stringify(result ? { id: req.id, result } : { id: req.id, error: { code: 'unknown_method', message: 'no \\u001b[2J such' } }) + '\\n');
  }
});
`;

/**
 * `remoteNice`: sshd (and so every ssh session and remote bridge) runs at that nice level. On loopback the "other host"
 * shares this machine's cores; a test of what the local side costs runs the far side low, as if it were elsewhere.
 */
export async function startMachines(t: { after(fn: () => unknown): void }, o: { localEnv?: Record<string, string>; remoteNice?: number } = {}): Promise<Machines> {
  const remote = makeTempEnv();
  const local = makeTempEnv();
  const rbin = join(remote.root, 'rbin');
  mkdirSync(rbin);
  // The remote `castellan` is this checkout's bin on the remote world's HOME: a separate server, as on another host.
  writeFileSync(
    join(rbin, 'castellan'),
    `#!/bin/sh\nexport HOME='${remote.home}' SHELL='${remote.env.SHELL}' PS1='$ ' TERM=xterm-256color LANG=C.UTF-8 HISTFILE=/dev/null INPUTRC=/dev/null\nexec '${process.execPath}' '${BIN}' "$@"\n`,
  );
  chmodSync(join(rbin, 'castellan'), 0o755);
  const evil = join(remote.root, 'evil.cjs');
  writeFileSync(evil, EVIL);
  let sshd: Sshd;
  try {
    sshd = await startSshd({
      remotePath: rbin,
      nice: o.remoteNice,
      variants: {
        // No castellan on this one's PATH.
        bare: ['SetEnv PATH=/usr/bin:/bin'],
        // An old castellan without the bridge command.
        old: [`ForceCommand echo 'castellan: unknown command "machine bridge"' >&2; exit 2`],
        // A hostile remote speaking the protocol with escape sequences in every text.
        evil: [`ForceCommand '${process.execPath}' '${evil}'`],
        // A login that prints a banner on stdout before castellan speaks (a noisy rc file).
        noisy: [`ForceCommand echo 'Welcome to box'; exec castellan machine bridge`],
      },
    });
  } catch (e) {
    await remote.cleanup();
    await local.cleanup();
    throw e;
  }
  Object.assign(local.env, { CASTELLAN_SSH: sshd.sshWrapper, ...o.localEnv });
  t.after(async () => {
    await sshd.stop();
    await remote.cleanup();
    await local.cleanup();
  });
  return { local, remote, sshd, dir: sshd.dir };
}
