// The platform's process room: every question castellan asks the OS about a process (its program and argv, its
// working directory, parent and children, session, state) goes through this door, and no module outside it names the
// proc filesystem (test/platform/proc-room.test.ts holds that).
//
// Two backends answer: Linux's /proc (linux.ts: reads, no process started) and a portable one for systems without it
// (portable.ts: ps and lsof, what macOS ships). The choice is made once, on first use: /proc when it is there, else
// portable; CASTELLAN_PLATFORM_BACKEND=portable (or =proc) forces one (the CI runs the suite a second time that way).
import { existsSync } from 'node:fs';
import * as linux from './linux.js';
import { portableBackend } from './portable.js';
import type { PaneProcesses, ProcBackend, ProcOptions, ProcStat } from './types.js';

export type { PaneProcesses, ProcBackend, ProcInfo, ProcOptions, ProcStat } from './types.js';
export { groupExists, pidExists } from './pid.js';
export { parseStat } from './linux.js';
export { parseLsofCwd, parseLsofCwds, parsePs, parsePsLine, PS_ARGS } from './ps.js';

/** The environment switch, read once. */
export const BACKEND_ENV = 'CASTELLAN_PLATFORM_BACKEND';

export const backends: Readonly<Record<ProcBackend['name'], ProcBackend>> = { proc: linux.linuxBackend, portable: portableBackend };

let chosen: ProcBackend | undefined;

/** Which backend `env` and this machine choose (pure but for one stat of the proc filesystem). */
export function chooseBackend(env: NodeJS.ProcessEnv = process.env): ProcBackend {
  const forced = env[BACKEND_ENV]?.trim().toLowerCase();
  if (forced === 'portable') return portableBackend;
  if ((forced === 'proc' || forced === 'linux') && existsSync(`${linux.PROC_DIR}/self/stat`)) return linux.linuxBackend;
  return process.platform === 'linux' && existsSync(`${linux.PROC_DIR}/self/stat`) ? linux.linuxBackend : portableBackend;
}

/** The backend in use in this process. */
export function procBackend(): ProcBackend {
  return (chosen ??= chooseBackend());
}

/** Tests: use `b` from now on (undefined: choose again from the environment). */
export function setProcBackend(b: ProcBackend | undefined): void {
  chosen = b;
}

export const readStat = (pid: number): ProcStat | undefined => procBackend().readStat(pid);
/** The short program name of a process ("vim", "node"): the kernel's comm, at most 15 characters. */
export const processName = (pid: number): string | undefined => procBackend().readStat(pid)?.comm;
export const processAlive = (pid: number): boolean => procBackend().processAlive(pid);
export const childAlive = (pid: number): boolean => procBackend().childAlive(pid);
export const processCwd = (pid: number, maxAgeMs?: number): string | undefined => procBackend().processCwd(pid, maxAgeMs);
export const processCwdAsync = (pid: number, maxAgeMs?: number): Promise<string | undefined> => procBackend().processCwdAsync(pid, maxAgeMs);
/** Whether the backend's answers start processes: the server's thread then asks the Async forms (types.ts). */
export const procBlocks = (): boolean => procBackend().blocking;
export const foregroundPgidAsync = (rootPid: number): Promise<number | undefined> => procBackend().foregroundPgidAsync(rootPid);
export const processNameAsync = async (pid: number): Promise<string | undefined> => (await procBackend().readStatAsync(pid))?.comm;
export const readPaneProcessesAsync = async (rootPid: number, opts: ProcOptions = {}): Promise<PaneProcesses> =>
  opts.procDir ? linux.readPaneProcesses(rootPid, opts) : procBackend().readPaneProcessesAsync(rootPid, opts);
export const descendsFrom = (pid: number, ancestor: number): boolean | undefined => procBackend().descendsFrom(pid, ancestor);
export const descendsFromAsync = (pid: number, ancestor: number): Promise<boolean | undefined> => procBackend().descendsFromAsync(pid, ancestor);
export const sessionMembers = (leaders: ReadonlySet<number>, self = process.pid): number[] | undefined => procBackend().sessionMembers(leaders, self);
export const fdNonBlocking = (fd: number): boolean => procBackend().fdNonBlocking(fd);
export const reopenStdinNonBlocking = (): number | undefined => procBackend().reopenStdinNonBlocking();
export const reaperArgs = (): string[] => procBackend().reaperArgs();
/** How to read a pane program's session token for the reaper, or undefined where it needs none (see ProcBackend). */
export const sessionTokens = (): ((pid: number) => Promise<string | undefined>) | undefined => procBackend().sessionTokenAsync;

/** `procDir` (a fake tree in tests) reads it with the Linux backend whatever the choice. */
export function foregroundPgid(rootPid: number, procDir?: string): number | undefined {
  return procDir ? linux.foregroundPgid(rootPid, procDir) : procBackend().foregroundPgid(rootPid);
}

export function readPaneProcesses(rootPid: number, opts: ProcOptions = {}): PaneProcesses {
  return opts.procDir ? linux.readPaneProcesses(rootPid, opts) : procBackend().readPaneProcesses(rootPid, opts);
}

export interface PlatformReport {
  platform: NodeJS.Platform;
  arch: string;
  backend: ProcBackend['name'];
  /** The backend in a user's words. */
  how: string;
  /** Set when the backend was chosen by CASTELLAN_PLATFORM_BACKEND. */
  forced?: string;
  /** What does not work as well here, in a user's words (empty on Linux with /proc). */
  lacks: string[];
}

/** What `castellan server status` says about this platform. */
export function platformReport(env: NodeJS.ProcessEnv = process.env): PlatformReport {
  const b = procBackend();
  const forced = env[BACKEND_ENV]?.trim() || undefined;
  const how = b.name === 'proc' ? 'processes read from /proc' : 'processes read with ps and lsof (portable backend)';
  return { platform: process.platform, arch: process.arch, backend: b.name, how, ...(forced ? { forced } : {}), lacks: b.lacks() };
}
