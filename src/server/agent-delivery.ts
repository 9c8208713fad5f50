// Delivering an agent's first message: Claude's SessionStart hook fetches it; other agents get it typed once their badge is idle.
import type { StampedEvent } from '../core/events.js';
import type { State } from '../core/types.js';
import type { AgentKind } from '../config/agents.js';
import { renderAll, type Injection } from '../hooks/inject.js';
import type { AgentScope } from '../hooks/registry.js';

/** How long an agent may take to show its input prompt before castellan types anyway (and says so in the log). */
const READY_TIMEOUT_MS = 120_000;
/** Claude: after it is ready, how long its SessionStart hook has had to fetch the message before castellan types it instead. */
const BRIDGE_GRACE_MS = 3000;
/** A TUI that just drew its prompt may not read input yet: a short settle before typing. */
const SETTLE_MS: Record<AgentKind, number> = { claude: 400, codex: 400, gemini: 400, pi: 400, opencode: 400, kilo: 400, copilot: 400, qwen: 400, other: 0 };
/** Gemini takes text + Enter in one burst as a paste (newline, no submit): Enter comes separately. */
// Qwen Code is a Gemini CLI fork: the same paste handling is assumed (not measured in the lab).
const ENTER_DELAY_MS: Record<AgentKind, number> = { claude: 150, codex: 150, gemini: 500, pi: 150, opencode: 150, kilo: 150, copilot: 150, qwen: 500, other: 20 };

export interface DeliveryCtx {
  scope: AgentScope;
  ended: Promise<string>;
  state(): State;
  listen(fn: (e: StampedEvent) => void): () => void;
  write(data: string, opts?: { paste?: boolean }): void;
  log(msg: string): void;
  emit(e: { type: string; [k: string]: unknown }): void;
}

export type PromptContexts = (text: string) => Promise<{ deny?: string; contexts: Injection[]; prompt?: string }>;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref?.());

/** Types text into the agent as a bracketed paste (when the program asked for it), then presses Enter. */
export async function typeInto(kind: AgentKind, write: DeliveryCtx['write'], text: string): Promise<void> {
  write(text, { paste: true });
  await sleep(ENTER_DELAY_MS[kind]);
  write('\r');
}

/** A prompt castellan typed after running its hooks; the agent's echo of it gets `contexts` and runs nothing again. */
export function rememberTyped(scope: AgentScope, text: string, contexts: Injection[]): void {
  scope.typed.push({ text, contexts });
  scope.typed.splice(0, Math.max(0, scope.typed.length - 20));
}

const ready = (s: string | undefined) => s === 'idle' || s === 'done';

/** Resolves when the pane's badge says the agent waits for input, the agent ends, or the deadline passes. */
export function waitReady(ctx: DeliveryCtx, timeoutMs = READY_TIMEOUT_MS): Promise<'ready' | 'ended' | 'timeout'> {
  const pane = ctx.scope.paneId;
  if (!pane) return Promise.resolve('ended');
  if (ready(ctx.state().panes[pane]?.agent.state)) return Promise.resolve('ready');
  return new Promise((resolve) => {
    let done = false;
    const finish = (r: 'ready' | 'ended' | 'timeout') => {
      if (done) return;
      done = true;
      off();
      clearTimeout(timer);
      resolve(r);
    };
    const off = ctx.listen((e) => {
      if (e.type === 'pane_agent_status_changed' && (e as { pane: string }).pane === pane && ready((e as { new: string }).new)) finish('ready');
    });
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    timer.unref?.();
    void ctx.ended.then(() => finish('ended'));
  });
}

/**
 * The first message: the definition's instructions and SubagentStart output, then `--prompt` (after its
 * UserPromptSubmit hooks). Claude gets the first part from its SessionStart hook; it is typed only if no bridge asked.
 */
export async function deliverFirst(ctx: DeliveryCtx, prompt: string | undefined, promptContexts: PromptContexts): Promise<void> {
  const { scope } = ctx;
  const gone = Symbol('gone');
  let over = false;
  void ctx.ended.then(() => (over = true));
  const orEnd = <T>(p: Promise<T>) => Promise.race([p, ctx.ended.then(() => gone)]);
  const first = (await orEnd(scope.first ?? Promise.resolve([]))) as Injection[] | typeof gone;
  if (first === gone) return;
  const w = await waitReady(ctx);
  if (w === 'ended') return;
  if (w === 'timeout') ctx.log(`warning: agent ${scope.agentId}: no idle badge after ${READY_TIMEOUT_MS / 1000} s; typing its first message anyway`);
  if (scope.kind === 'claude' && !scope.firstDelivered && (await orEnd(sleep(BRIDGE_GRACE_MS))) === gone) return;
  await orEnd(sleep(SETTLE_MS[scope.kind]));
  const typeFirst = !scope.firstDelivered;
  const parts: string[] = [];
  if (typeFirst) {
    parts.push(renderAll(first));
    scope.firstDelivered = true;
  }
  if (prompt !== undefined && prompt.trim()) {
    const r = await promptContexts(prompt);
    if (r.deny !== undefined) {
      ctx.log(`agent ${scope.agentId}: its first prompt was blocked by a UserPromptSubmit hook: ${r.deny}`);
      ctx.emit({ type: 'agent_prompt_blocked', agent_id: scope.agentId, pane: scope.paneId, reason: r.deny });
    } else {
      const text = r.prompt ?? prompt;
      if (scope.kind === 'claude' && !typeFirst) rememberTyped(scope, text, r.contexts);
      else parts.push(renderAll(r.contexts));
      parts.push(text);
    }
  }
  const text = parts.filter((p) => p.trim()).join('\n\n');
  if (!text || over) return;
  // The agent's own prompt hook will report this text: its hooks already ran here (see AgentManager.hook).
  if (typeFirst || scope.kind !== 'claude') rememberTyped(scope, text, []);
  await typeInto(scope.kind, ctx.write, text);
  if (typeFirst) ctx.emit({ type: 'agent_delivered', agent_id: scope.agentId, pane: scope.paneId, via: 'typed', items: first.length });
}
