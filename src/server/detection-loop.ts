// Screen heuristics on the server: runs detectors on dirty panes only, identifies agents from the process tree.
import type { AnyAction } from '../core/actions.js';
import type { State } from '../core/types.js';
import { createDetector, type Detector, type Reading } from '../detect/detector.js';
import { hookOverrideAt } from '../detect/hook-confirm.js';
import { explain, type DetectSnapshot, type Match } from '../detect/engine.js';
import { GenericReader, isGenericProgram } from '../detect/generic-signals.js';
import { identify, type Identification } from '../detect/identify.js';
import { GENERIC_AGENT, loadRules, ruleSetFor, type LoadedRules } from '../detect/rules.js';
import type { DetectState } from '../detect/rules-schema.js';
import { isSubmitKey } from '../detect/submit.js';
import { foregroundPgid, foregroundPgidAsync, groupExists, type PaneProcesses, procBlocks, processName, processNameAsync, readPaneProcesses, readPaneProcessesAsync } from '../platform/proc/index.js';
import type { PaneRuntime } from './pane-runtime.js';

/** Time for the loop: the real clock, or a fake one in replay tests (test/detect/stream-replay.test.ts). */
export interface DetectionClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const REAL_CLOCK: DetectionClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

/** What the loop needs of a pane: its screen, and its pty (absent in replays) to identify the agent. */
export type DetectionRuntime = Pick<PaneRuntime, 'screen' | 'exited'> & { pty?: { pid: number } | null };

export interface DetectionHost {
  state(): State;
  runtime(pane: string): DetectionRuntime | undefined;
  dispatch(action: AnyAction): void;
  log(msg: string): void;
  userRulesDir: string;
  clock?: DetectionClock;
  /** A fixed agent per pane instead of reading the process tree (replays of recorded streams). */
  agentOf?(pane: string): string | undefined;
}

interface PaneDetect {
  detector: Detector;
  agent: string | undefined;
  ident?: Identification;
  pgid?: number;
  /** Name of the foreground group's leader: `exec claude` keeps the pid and group but changes this. */
  fgComm?: string;
  /** When the process tree was last read. */
  identAt?: number;
  timer?: unknown;
  pending?: unknown;
  lastInputAt: number;
  lastRunAt: number;
  /** An unknown program (no shell, no pager) runs here: the generic reader (generic-signals.ts) reads it. */
  generic: boolean;
  /** The generic reader's own memory (last input, a spinning title), when `generic`. */
  reader?: GenericReader;
  /** An identification off the thread is on its way; a run meanwhile asked for another when it ends. */
  asking?: boolean;
  askAgain?: boolean;
  askedAt?: number;
  askTimer?: unknown;
}

/** When this pane's screen reading ends a hook report (hook-confirm.ts), with what the pane knows: its last key, its agent's rules. */
const overrideAt = (p: PaneDetect, hook: { state: DetectState; at: number }): number | undefined =>
  hookOverrideAt(p.detector.current(), { state: hook.state, at: hook.at }, undefined, p.lastInputAt, p.detector.rules.lateHooks);

/**
 * Detection runs at most this often per busy pane (a flood of output does not mean a flood of regexes: ~30 µs
 * per run, so 20 runs a second cost 0.06 % of a core), and a first change after a quiet spell is read after
 * SETTLE_MS, not a whole throttle period later: the rest of the frame the agent is writing has arrived by then.
 */
const THROTTLE_MS = 50;
const SETTLE_MS = 16;
/** A screen change this soon after the user typed or resized is the user's, not the agent's. */
const INPUT_ECHO_MS = 150;
/**
 * A pane whose foreground is a shell is looked at again this often while its screen changes: `sh -c 'run-agent.sh
 * claude'` keeps sh as the foreground group's leader while a script under it execs claude, so neither the group
 * nor its leader's name changes when the agent appears. (A tree read costs ~1 ms on a kernel with no task
 * `children` files: at most 0.1 % of a core, and only while such a pane draws.)
 */
const REIDENTIFY_MS = 1000;
/** Where asking starts a process (the portable backend's ps), a pane's processes are asked about at most this often. */
const ASK_MS = 400;

export class DetectionLoop {
  private rules: LoadedRules;
  private readonly panes = new Map<string, PaneDetect>();
  private readonly clock: DetectionClock;

  constructor(private readonly host: DetectionHost) {
    this.clock = host.clock ?? REAL_CLOCK;
    this.rules = this.load();
  }

  private load(): LoadedRules {
    const r = loadRules({ userDir: this.host.userRulesDir });
    for (const d of r.diagnostics) this.host.log(`detect rules: ${d.file}${d.line ? ':' + d.line : ''}: ${d.message}`);
    return r;
  }

  reload(): void {
    this.rules = this.load();
    for (const p of this.panes.values()) p.detector.setRules(ruleSetFor(this.rules, p.agent));
  }

  get diagnostics() {
    return this.rules.diagnostics;
  }

  private entry(id: string): PaneDetect {
    let p = this.panes.get(id);
    if (!p) {
      p = { detector: createDetector(ruleSetFor(this.rules, undefined)), agent: undefined, lastInputAt: 0, lastRunAt: Number.NEGATIVE_INFINITY, generic: false };
      this.panes.set(id, p);
    }
    return p;
  }

  /**
   * Input reached the pane (`data`: the bytes typed, when they are keys). An Enter that submits a prompt is the
   * turn's start, reported now rather than when the agent redraws (src/detect/submit.ts).
   */
  noteInput(id: string, data?: string): void {
    const p = this.panes.get(id);
    if (!p) return;
    const now = this.clock.now();
    p.lastInputAt = now;
    if (p.reader) p.reader.ackSeq = this.host.runtime(id)?.screen.signalSeq ?? p.reader.ackSeq;
    // Only an Enter can start a turn: any other key must not pay for a screen snapshot before it reaches the pty.
    const rt = data === undefined || !isSubmitKey(data) ? undefined : this.host.runtime(id);
    if (!rt || rt.exited) return;
    try {
      const reading = p.detector.input(data!, rt.screen.snapshot(), now);
      if (reading) this.apply(id, p, reading);
    } catch (err) {
      this.host.log(`detect ${id}: ${(err as Error).stack ?? err}`);
    }
  }

  paneDirty(id: string): void {
    const p = this.entry(id);
    if (p.pending) return;
    const now = this.clock.now();
    p.pending = this.clock.setTimeout(() => {
      p.pending = undefined;
      this.run(id);
    }, Math.max(SETTLE_MS, p.lastRunAt + THROTTLE_MS - now));
  }

  /**
   * Whether the screen already shows, for sure and since before now, something that would end a hook report of
   * `state` at once: a dialog no key has answered yet under a late "working" (the report of an event from
   * before the dialog). Such a report is dropped rather than shown for a frame (pane.report_agent).
   */
  screenOutranks(id: string, state: DetectState): boolean {
    const p = this.panes.get(id);
    const cur = p?.detector.current();
    if (!p || !cur) return false;
    const now = this.clock.now();
    const at = overrideAt(p, { state, at: now });
    return at !== undefined && at <= now && cur.since < now;
  }

  /**
   * A hook report reached the pane: the screen may already say otherwise (a report of an earlier event landing
   * late; pi's extension does not wait for its hooks), so the stale-report check runs now and arms its timer,
   * rather than at the next repaint, which a settled screen never makes.
   */
  hookReported(id: string): void {
    const p = this.panes.get(id);
    if (p?.detector.current()) this.apply(id, p, undefined);
  }

  forget(id: string): void {
    const p = this.panes.get(id);
    if (!p) return;
    if (p.timer) this.clock.clearTimeout(p.timer);
    if (p.pending) this.clock.clearTimeout(p.pending);
    if (p.askTimer) this.clock.clearTimeout(p.askTimer);
    this.panes.delete(id);
  }

  dispose(): void {
    for (const id of [...this.panes.keys()]) this.forget(id);
  }

  /**
   * Which agent runs in the pane: process tree first (re-read only when the foreground group changes). Where asking
   * starts a process (ps: the portable backend), it is asked off the thread and detection goes on with the last
   * identity meanwhile.
   */
  private identifyPane(id: string, p: PaneDetect, rt: DetectionRuntime): void {
    if (this.host.agentOf) {
      const fixed = this.host.agentOf(id);
      return this.setAgent(p, fixed === GENERIC_AGENT ? undefined : fixed, fixed === GENERIC_AGENT);
    }
    const pid = rt.pty?.pid;
    if (!pid) return;
    if (procBlocks()) return this.identifyLater(id, p, pid);
    const pgid = foregroundPgid(pid);
    const comm = pgid ? processName(pgid) : undefined;
    if (!this.settled(id, p, pgid, comm)) this.adopt(id, p, pid, pgid, comm, readPaneProcesses(pid));
  }

  /** Nothing to read again: the same foreground group and leader, and an identity that is sure and no report contradicts. */
  private settled(id: string, p: PaneDetect, pgid: number | undefined, comm: string | undefined): boolean {
    const reported = this.host.state().panes[id]?.agent.hook?.agent;
    const unsure = p.ident?.source === 'shell' && this.clock.now() - (p.identAt ?? Number.NEGATIVE_INFINITY) >= REIDENTIFY_MS;
    return !!p.ident && !unsure && pgid === p.pgid && comm === p.fgComm && p.ident.agent === (reported ?? p.ident.agent);
  }

  /** The identity the pane's processes give, and the detector for it. */
  private adopt(id: string, p: PaneDetect, pid: number, pgid: number | undefined, comm: string | undefined, procs: PaneProcesses): void {
    const pane = this.host.state().panes[id];
    const reported = pane?.agent.hook?.agent;
    const before = p.ident?.agent;
    const fgChanged = !!pgid && (pgid !== p.pgid || comm !== p.fgComm);
    p.pgid = pgid;
    p.fgComm = comm;
    p.identAt = this.clock.now();
    p.ident = identify({ processes: procs.processes, rootPid: pid, foregroundPid: procs.foregroundPid, launchCommand: pane?.command, reported, signatures: this.rules.signatures });
    const agent = p.ident.agent;
    if (fgChanged || (agent && agent !== before)) {
      // Node-based agents run as "node": their identified name says more.
      const name = agent ?? comm;
      if (name) this.host.dispatch({ type: 'pane.foreground', pane: id, name });
    }
    // Something runs that is no known agent, no shell and no pager: what it tells the terminal is read (issue 29).
    this.setAgent(p, agent, isGenericProgram(p.ident.source, agent, comm, procs.processes.length > 0));
  }

  /**
   * identifyPane off the thread: one question in flight per pane, at most one per ASK_MS (a ps costs a process start and
   * tens of ms of CPU; a pane drawing asks twenty times a second otherwise); a run meanwhile asks once more after.
   */
  private identifyLater(id: string, p: PaneDetect, pid: number): void {
    // The foreground group known is gone (a program ended, its shell has the terminal back): asked at once, no wait, so
    // a badge does not outlive its program (a signal 0 to the group: no process started).
    const gone = p.pgid !== undefined && p.pgid !== pid && !groupExists(p.pgid);
    if (gone && (p.agent || p.generic)) {
      // What ran there has ended: its identity goes now, in this run, as the synchronous path does (the ask confirms what runs).
      p.ident = { agent: undefined, source: 'none', why: `its foreground group ${p.pgid} ended` };
      p.pgid = undefined;
      p.fgComm = undefined;
      this.setAgent(p, undefined, false);
    }
    const wait = gone ? 0 : (p.askedAt ?? Number.NEGATIVE_INFINITY) + ASK_MS - this.clock.now();
    if (p.asking || wait > 0) {
      if (!p.asking) {
        p.askTimer ??= this.clock.setTimeout(() => {
          p.askTimer = undefined;
          if (this.panes.get(id) === p) this.identifyLater(id, p, pid);
        }, wait);
      } else p.askAgain = true;
      return;
    }
    p.asking = true;
    p.askedAt = this.clock.now();
    void this.askOffThread(id, p, pid)
      .catch((err: unknown) => this.host.log(`identify ${id}: ${(err as Error)?.stack ?? err}`))
      .finally(() => {
        p.asking = false;
        if (p.askAgain && this.panes.get(id) === p) {
          p.askAgain = false;
          this.identifyLater(id, p, pid);
        }
      });
  }

  /** One identification with the asynchronous questions (no process started on this thread), adopted if the pane is still there. */
  private async askOffThread(id: string, p: PaneDetect, pid: number): Promise<void> {
    const live = () => this.panes.get(id) === p;
    const pgid = await foregroundPgidAsync(pid);
    const comm = pgid ? await processNameAsync(pgid) : undefined;
    if (!live() || this.settled(id, p, pgid, comm)) return;
    const procs = await readPaneProcessesAsync(pid);
    if (!live()) return;
    const was = `${p.agent}/${p.generic}`;
    this.adopt(id, p, pid, pgid, comm, procs);
    // A new identity reads the screen with its own rules now, as the synchronous path does in the same run.
    if (`${p.agent}/${p.generic}` !== was) this.paneDirty(id);
  }

  /**
   * Identifies the pane now, with no wait of ASK_MS (`herd explain` shows what runs there at the moment it is asked).
   * Where asking starts a process (ps), it is asked off the thread, so keys and frames do not wait on it.
   */
  async identifyNow(id: string): Promise<void> {
    const rt = this.host.runtime(id);
    if (!rt || rt.exited) return;
    const p = this.entry(id);
    const pid = rt.pty?.pid;
    if (this.host.agentOf || !pid || !procBlocks()) return this.identifyPane(id, p, rt);
    await this.askOffThread(id, p, pid);
  }

  private setAgent(p: PaneDetect, agent: string | undefined, generic = false): void {
    if (agent === p.agent && generic === p.generic && p.ident) return;
    p.ident ??= { agent, source: agent ? 'report' : 'none', why: 'fixed by the host' };
    p.agent = agent;
    p.generic = generic;
    const reader = (p.reader = generic ? new GenericReader() : undefined);
    const signals = reader && ((snap: DetectSnapshot) => reader.read(snap));
    p.detector = createDetector(ruleSetFor(this.rules, agent), agent ? { agent } : signals ? { agent: GENERIC_AGENT, signals } : {});
  }

  private run(id: string): void {
    const rt = this.host.runtime(id);
    const pane = this.host.state().panes[id];
    if (!rt || !pane || rt.exited || pane.exited) return this.forget(id);
    const p = this.entry(id);
    try {
      this.identifyPane(id, p, rt);
      const now = this.clock.now();
      p.lastRunAt = now;
      const reading = p.detector.update(rt.screen.snapshot(), now, { input: now - p.lastInputAt < INPUT_ECHO_MS });
      this.apply(id, p, reading);
    } catch (err) {
      this.host.log(`detect ${id}: ${(err as Error).stack ?? err}`);
    }
  }

  private apply(id: string, p: PaneDetect, reading: Reading | undefined): void {
    const now = this.clock.now();
    const pane = this.host.state().panes[id];
    if (!pane) return;
    // A generic-reader pane is named "generic" (visible in pane info and herd list); a shell's pane stays unnamed.
    // ...and loses that name once the program is gone (a shell is back): a shell pane is never left named an agent.
    const unnamed = !p.generic && !p.agent && pane.agent.agent === GENERIC_AGENT && !pane.agent.hook;
    const agent = p.generic ? GENERIC_AGENT : unnamed ? null : reading && reading.agent !== GENERIC_AGENT ? reading.agent : p.agent;
    if (reading?.changed) this.host.dispatch({ type: 'agent.detected', pane: id, agent, state: reading.state, rule: reading.rule });
    const hook = pane.agent.hook;
    const cur = p.detector.current();
    // Only castellan's own integration's reports: a user's script that reported a state meant it (until reset or its next report).
    const hookEnds = hook?.integration ? overrideAt(p, hook) : undefined;
    if (hookEnds !== undefined && now >= hookEnds) {
      this.host.dispatch({ type: 'agent.detected', pane: id, agent, state: cur!.state, rule: `${cur!.rule ?? 'screen'} (hook report went stale)`, overrideHook: true });
    }
    this.scheduleTick(id, p);
  }

  /** One timer per pane, only while something can change with time alone (recency, debounce, a stale hook). */
  private scheduleTick(id: string, p: PaneDetect): void {
    if (p.timer) this.clock.clearTimeout(p.timer);
    p.timer = undefined;
    let at = p.detector.nextTickAt();
    const hook = this.host.state().panes[id]?.agent.hook;
    const staleAt = hook?.integration ? overrideAt(p, hook) : undefined;
    if (staleAt !== undefined) at = at === undefined ? staleAt : Math.min(at, staleAt);
    if (at === undefined) return;
    p.timer = this.clock.setTimeout(() => {
      p.timer = undefined;
      const rt = this.host.runtime(id);
      if (!rt || rt.exited) return this.forget(id);
      // A frame is waiting to be read: a state held on the previous frame may be gone already (pi's loader for
      // 90 ms after a rejection, reported as it vanished). Its run comes within THROTTLE_MS and re-arms this
      // timer. (Running it from here instead bypassed the throttle: under a flood of output the tick fired
      // again at once, starving the server; every attached-client e2e test timed out.)
      if (p.pending) return;
      this.apply(id, p, p.detector.tick(this.clock.now()));
    }, Math.max(0, at - this.clock.now()));
  }

  /** What detection sees and decides for a pane (`castellan herd explain`; identifyNow first). */
  explain(id: string): { agent?: string; identification?: Identification; reading?: Reading; matches: Match[]; snapshot: { lines: readonly string[]; title: string } } | undefined {
    const rt = this.host.runtime(id);
    if (!rt) return undefined;
    const p = this.entry(id);
    const snap = rt.screen.snapshot();
    const signal = p.reader?.peek(snap);
    const matches = signal ? [signal, ...explain(p.detector.rules, snap)] : explain(p.detector.rules, snap);
    const identification = p.generic && p.ident ? { ...p.ident, why: `${p.ident.why}; read by the generic reader (OSC 9;4, bells, notifications, title, dialogs)` } : p.ident;
    return { agent: p.generic ? GENERIC_AGENT : p.agent, identification, reading: p.detector.current(), matches, snapshot: { lines: snap.lines, title: snap.title } };
  }
}
