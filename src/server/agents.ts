// The server's agents: start a definition in a pane, hold its hooks in the registry for exactly its life, answer agent.hook / agent.prompt.
import { randomBytes } from 'node:crypto';
import type { AgentHookType, ListedAgent } from '../config/agents.js';
import { AGENT_HOOK_TYPES, loadAgents } from '../config/agents.js';
import type { Diagnostic } from '../config/load.js';
import type { AnyAction } from '../core/actions.js';
import type { StampedEvent } from '../core/events.js';
import type { ReduceResult } from '../core/reducer.js';
import type { State } from '../core/types.js';
import { runAgentHooks, type AgentHookPayload, type AgentHookReply, type AgentHookRunEvent } from '../hooks/agent-hooks.js';
import { agentSource, render, renderAll, type Injection } from '../hooks/inject.js';
import { AgentHookRegistry, type AgentScope } from '../hooks/registry.js';
import { readTrust } from '../config/trust.js';
import type { Paths } from '../platform/paths.js';
import { ApiError } from '../api/errors.js';
import { deliverFirst, rememberTyped, typeInto } from './agent-delivery.js';
import type { SplitAction } from '../core/reduce-panes.js';
import { unsupportedStages } from '../integrations/matrix.js';
import { unsupportedEvent } from './stage-warnings.js';
import { startInWorktree, WorktreeManager, type WorktreeStart } from '../worktree/index.js';

/** How long a SessionStart answer waits for SubagentStart hooks (Claude gives its hook 10 s in all). */
const FIRST_WAIT_MS = 8000;
/** How long the next prompt waits for PostSampling hooks still running. */
const POST_WAIT_MS = 5000;

export interface AgentHost {
  paths: Paths;
  cwd: string;
  env: NodeJS.ProcessEnv;
  state(): State;
  dispatch(action: AnyAction): ReduceResult;
  /** A sub-harness split (SessionStart hooks first); `plugin` names the session in their payload. */
  subHarness?(action: SplitAction, plugin: string): Promise<ReduceResult>;
  writePane(pane: string, data: string, opts?: { paste?: boolean }): void;
  paneCwd(pane: string): string | undefined;
  emit(e: { type: string; [k: string]: unknown }): void;
  /** Adds an internal event listener; returns its removal. */
  listen(fn: (e: StampedEvent) => void): () => void;
  log(msg: string): void;
}

export type HookKind = AgentHookType | 'SessionStart';

export type AgentStartParams = {
  name: string;
  cwd?: string;
  pane?: string;
  prompt?: string;
  direction?: 'left' | 'right' | 'up' | 'down';
  focus?: boolean;
  /** Start it as a sub-harness pane of this pane (which must be in a recursive episode). */
  parent?: string;
  /** In a new git worktree: true for a default branch name, or the branch to create; false: not even if the definition asks. */
  worktree?: boolean | string;
};

const bounded = <T>(p: Promise<T>, ms: number): Promise<T | undefined> => {
  let t: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<undefined>((r) => (t = setTimeout(() => r(undefined), ms)))]).finally(() => clearTimeout(t));
};

const norm = (s: string) => s.replace(/\s+/g, ' ').trim();

export class AgentManager {
  readonly registry = new AgentHookRegistry();
  /** Agents' git worktrees (src/worktree): the pane.split and worktree.* methods reach them here too. */
  readonly worktrees: WorktreeManager;
  /** Resolves each running agent's end (with why it ended). */
  private readonly enders = new Map<string, (why: string) => void>();
  private readonly unlisten: () => void;
  private disposed = false;

  constructor(private readonly h: AgentHost) {
    this.unlisten = h.listen((e) => this.onEvent(e));
    this.worktrees = new WorktreeManager({ stateDir: h.paths.stateDir, session: h.paths.session, env: h.env, state: h.state, dispatch: h.dispatch, emit: h.emit, listen: h.listen, log: h.log });
  }

  private onEvent(e: StampedEvent): void {
    if (e.type !== 'pane_exited' && e.type !== 'pane_closed') return;
    const pane = (e as { pane: string }).pane;
    for (const s of this.registry.byPane(pane)) this.enders.get(s.agentId)?.(e.type === 'pane_exited' ? `exited (code ${(e as { code?: number | null }).code ?? '?'})` : 'pane closed');
  }

  private cwdFor(p: { cwd?: string; paneId?: string }): string {
    return p.cwd ?? (p.paneId ? this.h.paneCwd(p.paneId) : undefined) ?? this.h.cwd;
  }

  /** Every definition visible from a directory (a pane's, or the server's), with why project ones may not start. */
  list(p: { cwd?: string; paneId?: string } = {}): { agents: ListedAgent[]; diagnostics: Diagnostic[]; running: Array<Record<string, unknown>> } {
    const { data } = readTrust(this.h.paths.trustFile);
    const r = loadAgents({ cwd: this.cwdFor(p), home: this.h.paths.home, trust: data, pathEnv: this.h.env.PATH });
    const running = this.registry.list().map((s) => ({ agent_id: s.agentId, agent_type: s.agentType, pane_id: s.paneId ?? null, kind: s.kind, started_at: s.registeredAt }));
    return { ...r, running };
  }

  private newId(name: string): string {
    for (;;) {
      const id = `${name}-${randomBytes(2).toString('hex')}`;
      if (!this.registry.has(id)) return id;
    }
  }

  private emitHook = (e: AgentHookRunEvent) => this.h.emit(e as unknown as { type: string; [k: string]: unknown });
  private hookOpts() {
    return { env: this.h.env, socket: this.h.paths.socket, session: this.h.paths.session, emit: this.emitHook, warn: (m: string) => this.h.log(`warning: ${m}`) };
  }

  /** Starts a definition in a new pane (beside `pane`, or the active one). The hooks live exactly as long as the agent. */
  async start(p: AgentStartParams): Promise<{ agent_id: string; agent_type: string; pane_id: string; window_id: string; kind: string; delivery: string; worktree?: unknown }> {
    if (this.disposed) throw new ApiError('shutting_down', 'the server is stopping');
    const target = p.parent ?? (p.pane && p.pane !== 'new' ? p.pane : undefined);
    const cwd = this.cwdFor({ cwd: p.cwd, paneId: target });
    const { agents } = this.list({ cwd });
    const def = agents.find((a) => a.name === p.name);
    if (!def) throw new ApiError('invalid_params', `no agent named "${p.name}" (castellan agent list shows them)`);
    if (!def.startable) throw new ApiError('denied', `agent "${def.name}" cannot start: ${def.reason}`);
    const want = p.worktree ?? def.worktree;
    const wt: WorktreeStart | undefined = want ? await startInWorktree(this.worktrees, { cwd, worktree: want, agent: def.name, parent: p.parent }) : undefined;
    const agentId = this.newId(def.name);
    const scope = this.registry.register(agentId, def.hooksValid ? def.hooks : {}, { agentType: def.name, kind: def.kind, cwd: wt?.cwd ?? cwd, file: def.file });
    let ended!: Promise<string>;
    let result: ReduceResult;
    try {
      ended = new Promise<string>((r) => this.enders.set(agentId, r));
      const env = { CASTELLAN_AGENT_ID: agentId, CASTELLAN_AGENT_TYPE: def.name, ...wt?.env };
      const split = { type: 'pane.split' as const, pane: target, direction: p.direction ?? 'right', command: ['/bin/sh', '-c', def.command], cwd: wt?.cwd ?? cwd, name: def.name, env, detached: p.focus === false };
      if (p.parent) {
        if (!this.h.subHarness) throw new ApiError('not_allowed', 'this server cannot open sub-harness panes');
        // A delegate step: grouped with its parent, its SessionStart hooks run first (a failure refuses it).
        result = await this.h.subHarness({ ...split, subHarness: true, detached: p.focus !== true }, def.name);
      } else {
        result = this.h.dispatch(split);
      }
    } catch (e) {
      // Nothing may be left behind by a start that failed.
      this.enders.delete(agentId);
      this.registry.unregister(agentId);
      await wt?.failed();
      throw e;
    }
    const paneId = String(result.result?.pane);
    const worktree = wt?.opened(paneId);
    scope.paneId = paneId;
    const hookTypes = def.hooksValid ? Object.keys(def.hooks) : [];
    const nested = p.parent ? { parent: p.parent, depth: result.result?.depth, goal_id: result.result?.goal_id } : {};
    this.h.emit({ type: 'agent_started', agent_id: agentId, agent_type: def.name, kind: def.kind, pane: paneId, file: def.file, hooks: hookTypes, ...nested, ...(worktree ? { worktree: worktree.path, branch: worktree.branch } : {}) });
    // Hooks its harness never fires would silently do nothing: say so once, at start.
    for (const u of unsupportedStages(def.kind, hookTypes as AgentHookType[])) {
      this.h.emit(unsupportedEvent({ stage: u.stage, harness: def.kind, note: u.note, pane: paneId, agentId, what: `agent ${def.name} has ${u.stage} hooks` }));
    }
    void this.lifecycle(scope, def, ended, p.prompt);
    return { agent_id: agentId, agent_type: def.name, pane_id: paneId, window_id: String(result.result?.window), kind: def.kind, delivery: def.kind === 'claude' ? 'session_start' : 'typed', ...(worktree ? { worktree } : {}) };
  }

  private async lifecycle(scope: AgentScope, def: ListedAgent, ended: Promise<string>, prompt: string | undefined): Promise<void> {
    let why = 'ended';
    try {
      scope.first = this.firstMessage(scope, def);
      // Delivery waits for the agent on its own; it gives up when the agent ends.
      void deliverFirst(
        { scope, ended, state: () => this.h.state(), listen: this.h.listen, write: (d, o) => this.h.writePane(scope.paneId!, d, o), log: this.h.log, emit: this.h.emit },
        prompt,
        (text) => this.promptContexts(scope, text),
      ).catch((e) => this.h.log(`agent ${scope.agentId}: delivering the first message failed: ${(e as Error).message}`));
      why = await ended;
    } catch (e) {
      why = `error: ${(e as Error).message}`;
      this.h.log(`agent ${scope.agentId}: ${why}`);
    } finally {
      this.enders.delete(scope.agentId);
      this.registry.unregister(scope.agentId);
      this.h.emit({ type: 'agent_ended', agent_id: scope.agentId, agent_type: scope.agentType, pane: scope.paneId, reason: why });
    }
  }

  /** The definition's instructions (a directive) and what SubagentStart printed (ambient), in that order. */
  private async firstMessage(scope: AgentScope, def: ListedAgent): Promise<Injection[]> {
    const out: Injection[] = [];
    if (def.body) out.push({ kind: 'directive', source: agentSource(def.name, 'instructions'), reason: `you were started as the castellan agent ${def.name}; these are its instructions`, text: def.body });
    try {
      const r = await runAgentHooks(this.registry.getHooks(scope.agentId, 'SubagentStart'), 'SubagentStart', this.subject(scope), {}, this.hookOpts());
      out.push(...r.contexts);
    } catch (e) {
      this.h.log(`warning: agent ${scope.agentId}: SubagentStart: ${(e as Error).message}`);
    }
    return out;
  }

  private subject(s: AgentScope) {
    return { agentId: s.agentId, agentType: s.agentType, paneId: s.paneId, cwd: s.cwd };
  }

  /** UserPromptSubmit for a prompt: its hooks, plus context waiting from earlier (PostSampling), consumed only when the prompt goes through. */
  private async promptContexts(scope: AgentScope, text: string): Promise<{ deny?: string; contexts: Injection[]; prompt?: string }> {
    if (scope.inflight.size) await bounded(Promise.allSettled([...scope.inflight]), POST_WAIT_MS);
    const r = await runAgentHooks(this.registry.getHooks(scope.agentId, 'UserPromptSubmit'), 'UserPromptSubmit', this.subject(scope), { prompt: text }, this.hookOpts());
    if (r.decision === 'deny') return { deny: r.reason ?? 'blocked by a UserPromptSubmit hook', contexts: [] };
    const contexts = [...scope.pending.splice(0), ...r.contexts];
    return { contexts, ...(r.prompt !== undefined && r.prompt !== text ? { prompt: r.prompt } : {}) };
  }

  /** agent.hook: what the bridge asks on the agent's behalf. Unknown ids (or another pane's) get nothing: dormant. */
  async hook(p: { agentId: string; hookType: HookKind; payload?: AgentHookPayload; paneId?: string }): Promise<AgentHookReply> {
    const scope = this.registry.get(p.agentId);
    const none: AgentHookReply = { registered: false, decision: 'allow', contexts: [] };
    if (!scope || (p.paneId && scope.paneId && p.paneId !== scope.paneId)) return none;
    const payload = p.payload ?? {};
    const src = (stage: string) => agentSource(scope.agentType, stage);
    switch (p.hookType) {
      case 'SessionStart': {
        // Claimed at once, so castellan does not also type it while SubagentStart hooks still run.
        scope.firstDelivered = true;
        const first = scope.first ? await bounded(scope.first, FIRST_WAIT_MS) : [];
        if (!first) {
          scope.firstDelivered = false;
          this.h.log(`warning: agent ${scope.agentId}: SubagentStart still running after ${FIRST_WAIT_MS} ms; its first message will be typed instead`);
          return { registered: true, decision: 'allow', contexts: [] };
        }
        this.h.emit({ type: 'agent_delivered', agent_id: scope.agentId, pane: scope.paneId, via: 'session_start', items: first.length });
        return { registered: true, decision: 'allow', contexts: first.filter((i) => i.text.trim()).map(render) };
      }
      case 'UserPromptSubmit': {
        const text = payload.prompt ?? '';
        // A prompt castellan typed itself already ran its hooks: hand over the context kept for it.
        const i = scope.typed.findIndex((t) => norm(t.text) === norm(text));
        if (i !== -1) return { registered: true, decision: 'allow', contexts: scope.typed.splice(i, 1)[0].contexts.map(render) };
        const r = await this.promptContexts(scope, text);
        if (r.deny !== undefined) return { registered: true, decision: 'deny', reason: r.deny, contexts: [] };
        const contexts = [...r.contexts];
        if (r.prompt !== undefined) contexts.push({ kind: 'directive', source: src('UserPromptSubmit'), reason: `a UserPromptSubmit hook of ${scope.agentType} rewrote the prompt`, text: `Treat the user's message as:\n${r.prompt}` });
        return { registered: true, decision: 'allow', contexts: contexts.map(render), ...(r.prompt !== undefined ? { prompt: r.prompt } : {}) };
      }
      case 'SubagentStop': {
        const r = await runAgentHooks(this.registry.getHooks(scope.agentId, 'SubagentStop'), 'SubagentStop', this.subject(scope), payload, this.hookOpts());
        // Advice from tool time reaches the agent with its next prompt; a denial speaks now, as a directive with its reason.
        if (r.contexts.length && this.registry.has(scope.agentId)) scope.pending.push(...r.contexts);
        if (r.decision === 'allow') return { registered: true, decision: 'allow', contexts: [] };
        const tool = payload.tool_name ?? payload.tool ?? 'this tool';
        const reason = r.reason ?? `${scope.agentType} may not use ${tool}`;
        return { registered: true, decision: 'deny', reason, contexts: [render({ kind: 'directive', source: src('SubagentStop'), reason, text: `Do not use ${tool} for this; the call was blocked.` })] };
      }
      case 'PostSampling': {
        // The agent is not kept waiting: the advice is stored for its next prompt, which waits for this (bounded).
        const run = runAgentHooks(this.registry.getHooks(scope.agentId, 'PostSampling'), 'PostSampling', this.subject(scope), payload, this.hookOpts())
          .then((r) => {
            if (this.registry.get(scope.agentId) === scope) scope.pending.push(...r.contexts);
          })
          .catch((e) => this.h.log(`warning: agent ${scope.agentId}: PostSampling: ${(e as Error).message}`))
          .finally(() => scope.inflight.delete(run));
        scope.inflight.add(run);
        return { registered: true, decision: 'allow', contexts: [] };
      }
    }
    return none;
  }

  /** agent.prompt: runs UserPromptSubmit, then types the prompt (with its context, unless the agent's bridge delivers that). */
  async prompt(p: { agentId?: string; paneId?: string; text: string }): Promise<{ sent: boolean; agent_id: string; pane_id: string; decision: 'allow' | 'deny'; reason?: string; text?: string }> {
    const scope = p.agentId ? this.registry.get(p.agentId) : p.paneId ? this.registry.byPane(p.paneId)[0] : undefined;
    if (!scope || !scope.paneId) throw new ApiError('invalid_params', p.agentId ? `no running castellan agent ${p.agentId}` : `no castellan agent runs in pane ${p.paneId ?? '?'}`);
    const r = await this.promptContexts(scope, p.text);
    if (r.deny !== undefined) return { sent: false, agent_id: scope.agentId, pane_id: scope.paneId, decision: 'deny', reason: r.deny };
    const text = r.prompt ?? p.text;
    let typed = text;
    if (scope.kind === 'claude' && scope.firstDelivered) {
      // Claude's own UserPromptSubmit hook will ask for this prompt: its context goes there, out of the visible text.
      rememberTyped(scope, text, r.contexts);
    } else {
      if (r.contexts.length) typed = `${renderAll(r.contexts)}\n\n${text}`;
      rememberTyped(scope, typed, []);
    }
    await typeInto(scope.kind, (d, o) => this.h.writePane(scope.paneId!, d, o), typed);
    return { sent: true, agent_id: scope.agentId, pane_id: scope.paneId, decision: 'allow', text: typed };
  }

  /** A restored pane whose agent came from a definition: its hooks are armed again (no first message: the conversation has it). */
  adopt(p: { name: string; paneId: string; cwd: string }): { agentId: string; command: string } | { refused: string } {
    if (this.disposed) return { refused: 'the server is stopping' };
    const def = this.list({ cwd: p.cwd }).agents.find((a) => a.name === p.name);
    if (!def) return { refused: `no agent definition named "${p.name}" any more` };
    if (!def.startable) return { refused: `agent "${def.name}" cannot start: ${def.reason}` };
    const agentId = this.newId(def.name);
    const scope = this.registry.register(agentId, def.hooksValid ? def.hooks : {}, { agentType: def.name, kind: def.kind, cwd: p.cwd, file: def.file });
    scope.paneId = p.paneId;
    scope.firstDelivered = true;
    void new Promise<string>((r) => this.enders.set(agentId, r)).then((why) => {
      this.enders.delete(agentId);
      this.registry.unregister(agentId);
      this.h.emit({ type: 'agent_ended', agent_id: agentId, agent_type: def.name, pane: p.paneId, reason: why });
    });
    this.h.emit({ type: 'agent_started', agent_id: agentId, agent_type: def.name, kind: def.kind, pane: p.paneId, file: def.file, hooks: def.hooksValid ? Object.keys(def.hooks) : [], resumed: true });
    return { agentId, command: def.command };
  }

  /** Server shutdown: every agent ends and the registry is emptied now (the lifecycles' finally blocks follow). */
  dispose(): void {
    this.disposed = true;
    for (const end of [...this.enders.values()]) end('server shutdown');
    this.registry.clearAll();
    this.unlisten();
    this.worktrees.dispose();
  }
}

export const HOOK_KINDS: readonly HookKind[] = [...AGENT_HOOK_TYPES, 'SessionStart'];
