// The ssh command line for a machine: the target always after `--`, the remote command built only from checked words.
import { type MachineProfile, sessionProblem, targetProblem } from './profile.js';

export interface SshArgvOptions {
  /** No prompts (scripts): a key that needs a passphrase or an unknown host key fails instead of waiting. */
  batch?: boolean;
  connectTimeoutS?: number;
  /** ssh's own keepalive: a dead TCP link is noticed within interval x count seconds. */
  aliveIntervalS?: number;
  aliveCount?: number;
  /** The castellan command on the remote side (default `castellan`). */
  remoteCommand?: string;
}

/** The words of the remote command: `castellan machine bridge [--session S]`. */
export function remoteBridgeCommand(profile: MachineProfile, remoteCommand = 'castellan'): string[] {
  const words = [remoteCommand, 'machine', 'bridge'];
  if (profile.session) words.push('--session', profile.session);
  return words;
}

/** argv for `ssh` (without the program): throws on a profile that breaks the rules (a forged file must not get this far). */
export function sshArgv(profile: MachineProfile, o: SshArgvOptions = {}): string[] {
  const bad = targetProblem(profile.target) ?? (profile.session ? sessionProblem(profile.session) : undefined);
  if (bad) throw new Error(`machine "${profile.name}": ${bad}`);
  if (o.remoteCommand !== undefined && !/^[A-Za-z0-9_./-]{1,200}$/.test(o.remoteCommand)) throw new Error('the remote castellan command must be a plain path');
  const args = ['-T', '-o', 'BatchMode=' + (o.batch === false ? 'no' : 'yes')];
  args.push('-o', `ConnectTimeout=${o.connectTimeoutS ?? 5}`);
  args.push('-o', `ServerAliveInterval=${o.aliveIntervalS ?? 5}`, '-o', `ServerAliveCountMax=${o.aliveCount ?? 3}`);
  args.push('--', profile.target, ...remoteBridgeCommand(profile, o.remoteCommand));
  return args;
}
