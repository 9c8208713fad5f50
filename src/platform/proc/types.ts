// What castellan asks the OS about a process, and the shape of each answer: one interface, one backend per platform.
import type { ProcInfo } from '../../detect/identify.js';

export type { ProcInfo };

export interface ProcStat {
  pid: number;
  comm: string;
  ppid: number;
  pgrp: number;
  /** The session the process belongs to (a pane's program leads its own); -1 where the platform does not say (portable). */
  session: number;
  /** Foreground process group of the process's controlling terminal (-1: none). */
  tpgid: number;
  /** R, S, D, Z (exited, awaiting reaping), ... */
  state: string;
}

export interface PaneProcesses {
  rootPid: number;
  /** A process of the terminal's foreground group (its leader when alive), if it is in the tree. */
  foregroundPid?: number;
  foregroundPgid?: number;
  processes: ProcInfo[];
}

export interface ProcOptions {
  /** A fake proc tree to read instead of the kernel's (tests); forces the Linux backend. */
  procDir?: string;
  /** Stop collecting after this many processes (a fork bomb in a pane must not stall the server). */
  maxProcesses?: number;
}

/** One way of asking: Linux's proc filesystem, or the portable one (ps, lsof) for systems without it. */
export interface ProcBackend {
  readonly name: 'proc' | 'portable';
  /**
   * Its answers start processes (ps, lsof): a caller on the server's thread asks the Async forms, and the synchronous
   * ones answer from what was last read where they can (portable.ts).
   */
  readonly blocking: boolean;
  readStat(pid: number): ProcStat | undefined;
  readStatAsync(pid: number): Promise<ProcStat | undefined>;
  /** The process exists and has not exited (a zombie has exited and only awaits reaping). */
  processAlive(pid: number): boolean;
  /** processAlive for a pane's own program, which node-pty reaps as it exits (asked every 20 ms while a pane is paused). */
  childAlive(pid: number): boolean;
  /** The foreground process group of the pane's terminal, from its root process. */
  foregroundPgid(rootPid: number): number | undefined;
  foregroundPgidAsync(rootPid: number): Promise<number | undefined>;
  /** The pane's root process, its descendants and the foreground group. Empty when the root is gone. */
  readPaneProcesses(rootPid: number, opts?: ProcOptions): PaneProcesses;
  readPaneProcessesAsync(rootPid: number, opts?: ProcOptions): Promise<PaneProcesses>;
  /** Whether `pid` is `ancestor` or runs under it; undefined when the backend cannot say. */
  descendsFrom(pid: number, ancestor: number): boolean | undefined;
  /** descendsFrom without blocking the thread (the portable backend waits for its ps off the thread, shared). */
  descendsFromAsync(pid: number, ancestor: number): Promise<boolean | undefined>;
  /**
   * Live (not zombie) processes that belong to the panes led by `leaders` (their sessions where the platform lists
   * sessions; else their process groups and descendants), `self` excluded; undefined when nothing can be listed.
   */
  sessionMembers(leaders: ReadonlySet<number>, self: number): number[] | undefined;
  /**
   * The session token of a pane program that leads its session, for the reaper (`=PID TOKEN`): where ps names a session
   * by something other than its leader's pid (macOS: a kernel pointer), the reaper cannot learn it once the leader is
   * gone. Absent where the reaper reads sessions itself (/proc): nothing then asks.
   */
  sessionTokenAsync?(pid: number): Promise<string | undefined>;
  /**
   * The process's working directory, or undefined (gone, not ours, or the tool to ask is missing). Where a read costs a
   * process start (lsof), an answer asked for at most `maxAgeMs` before is given again; 0 (what a new pane asks) reads
   * after this call. Absent: the backend's own measure (half a second for lsof).
   */
  processCwd(pid: number, maxAgeMs?: number): string | undefined;
  /** processCwd off the thread. */
  processCwdAsync(pid: number, maxAgeMs?: number): Promise<string | undefined>;
  /** Is this descriptor's file description non-blocking? false when the backend cannot tell. */
  fdNonBlocking(fd: number): boolean;
  /** A second, non-blocking descriptor of the FIFO on stdin, or undefined where there is no way to open one. */
  reopenStdinNonBlocking(): number | undefined;
  /** What bin/castellan-reaper.sh is told so it reads processes the same way. */
  reaperArgs(): string[];
  /** What this backend cannot do as well as the Linux one, in a user's words (empty: nothing). */
  lacks(): string[];
}
