// Brings restored panes to life: history above a dim "restored" line, then (after SessionStart allows it) the resume command typed into the shell.
import { shellQuote, type PanePlan, type RestorePlan } from './plan.js';

export interface ApplyHost {
  /** show(): text into the pane's screen, parsed in turns with all panes' output (PaneRuntime.show); write(): into its pty. */
  pane(id: string): { readonly exited: boolean; readonly lastOutputAt: number; show(data: string | Iterator<string>): void; write(data: string): void } | undefined;
  paneCwd(id: string): string;
  /** Re-arms an agent definition's hooks for a restored pane (refused: untrusted or gone); absent: definitions are not restored. */
  adopt?(p: { name: string; paneId: string; cwd: string }): { agentId: string; command: string } | { refused: string };
  /** Governance SessionStart for a resumed agent; false (with a reason) refuses the resume. */
  sessionStart(p: { pane: string; agent: string; cwd: string; argv: string[] }): Promise<{ ok: boolean; reason?: string }>;
  emit(e: { type: string; [k: string]: unknown }): void;
  log(msg: string): void;
}

/** How long a restored shell may take to show its prompt before the command is typed anyway. */
const PROMPT_WAIT_MS = 3000;

const dim = (s: string) => `\x1b[0m\x1b[2m── ${s} ──\x1b[0m\r\n`;

/**
 * History goes to the screen in pieces of about this many characters, each parsed in a turn of the server's parse
 * scheduler (src/server/parse-feed.ts) like any pane's output: a turn parses for ~2 ms, then the loop polls I/O. As one
 * write per pane, xterm parsed 10 000 lines in one go (~80 ms under load); as 16 KB xterm writes, each screen parsed for
 * 12 ms on its own timer and sixteen screens' timers ran back to back (bench restore row "longest synchronous slice
 * painting them": 206 ms). All pieces are queued at once: they still precede the shell's first output.
 */
export const HISTORY_WRITE_CHARS = 16 * 1024;

/** The pieces, each made when the pane's turn comes to parse it (PaneFeed.queue). */
function* historyPieces(lines: readonly string[]): Generator<string> {
  let part: string[] = [];
  let chars = 0;
  for (const l of lines) {
    part.push(l);
    chars += l.length + 2;
    if (chars < HISTORY_WRITE_CHARS) continue;
    yield part.join('\r\n') + '\r\n';
    part = [];
    chars = 0;
  }
  if (part.length) yield part.join('\r\n') + '\r\n';
}

function waitForOutput(h: ApplyHost, id: string, ms: number): Promise<void> {
  const until = Date.now() + ms;
  return new Promise((resolve) => {
    const tick = () => {
      const rt = h.pane(id);
      if (!rt || rt.exited || rt.lastOutputAt > 0 || Date.now() > until) return resolve();
      setTimeout(tick, 25).unref();
    };
    tick();
  });
}

/** Queues history and the note now (parsed in the next turns); the returned promise types the follow-up command later. */
function one(h: ApplyHost, id: string, p: PanePlan): Promise<void> | undefined {
  const rt = h.pane(id);
  if (!rt) return;
  // Written before the shell's first output arrives (that comes in a later tick), so history sits above the prompt.
  if (p.history?.length) rt.show(historyPieces(p.history));
  rt.show(dim(p.note));
  if (!p.typed && !p.definition) return undefined;
  return followUp(h, id, p, rt);
}

async function followUp(h: ApplyHost, id: string, p: PanePlan, rt: NonNullable<ReturnType<ApplyHost['pane']>>): Promise<void> {
  let typed = p.typed;
  if (p.definition) {
    const a = h.adopt ? h.adopt({ name: p.definition, paneId: id, cwd: h.paneCwd(id) }) : { refused: 'agent definitions are not available' };
    if ('refused' in a) {
      // A definition castellan may not start now (an untrusted project's, one that is gone) does not come back at all.
      rt.show(dim(`agent ${p.definition} not restored: ${a.refused}`));
      return;
    }
    typed = `CASTELLAN_AGENT_ID=${a.agentId} CASTELLAN_AGENT_TYPE=${shellQuote([p.definition])} ${typed ?? a.command}`;
  }
  if (!typed) return;
  if (p.agent) {
    let start: { ok: boolean; reason?: string };
    try {
      start = await h.sessionStart({ pane: id, agent: p.agent.name, cwd: h.paneCwd(id), argv: p.agent.argv });
    } catch (e) {
      start = { ok: false, reason: (e as Error).message };
    }
    if (!start.ok) {
      rt.show(dim(`not resumed: a SessionStart hook refused it: ${start.reason ?? 'no reason given'}`));
      h.emit({ type: 'agent_resume_refused', pane: id, agent: p.agent.name, reason: start.reason ?? '' });
      return;
    }
    h.emit({ type: 'agent_resumed', pane: id, agent: p.agent.name, resumed: true, how: p.agent.how, session_id: p.agent.sessionId ?? null, argv: p.agent.argv });
  }
  await waitForOutput(h, id, PROMPT_WAIT_MS);
  const now = h.pane(id);
  if (now && !now.exited) now.write(typed + '\r');
}

/** Call right after the restored panes were spawned (same tick): paints every pane, then runs the follow-ups on their own. */
export function applyRestore(h: ApplyHost, plan: RestorePlan): Promise<void> {
  const runs: Promise<void>[] = [];
  for (const [id, p] of plan.panes) {
    const r = one(h, id, p);
    if (r) runs.push(r.catch((e) => h.log(`restore ${id}: ${(e as Error).message}`)));
  }
  return Promise.all(runs).then(() => undefined);
}
