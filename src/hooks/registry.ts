// AgentHookRegistry: per-agent hooks and per-agent state, scoped by agentId; held by the server, emptied as agents end.
import type { AgentHookEntry, AgentHookType, AgentHooks, AgentKind } from '../config/agents.js';
import type { Injection } from './inject.js';

export interface AgentScopeInfo {
  agentType: string;
  paneId?: string;
  kind: AgentKind;
  /** Where the agent runs; its hook commands run here too. */
  cwd: string;
  /** The definition file (for messages). */
  file?: string;
}

/** Everything castellan keeps for one running agent; dropped whole when it is unregistered. */
export interface AgentScope extends AgentScopeInfo {
  readonly agentId: string;
  readonly hooks: Readonly<AgentHooks>;
  readonly registeredAt: number;
  /** Context waiting for the agent's next prompt (PostSampling advisories, SubagentStop output). */
  pending: Injection[];
  /** Prompts castellan typed after running UserPromptSubmit itself: the agent's echo of them must not run the hooks again. */
  typed: Array<{ text: string; contexts: Injection[] }>;
  /** The first message (instructions + SubagentStart output), settled once SubagentStart ran. */
  first?: Promise<Injection[]>;
  /** The agent's bridge fetched the first message (SessionStart), so it need not be typed. */
  firstDelivered: boolean;
  /** PostSampling runs in flight; the next prompt waits for them (bounded). */
  inflight: Set<Promise<unknown>>;
}

export class AgentHookRegistry {
  private readonly scopes = new Map<string, AgentScope>();

  /** Registers an agent's hooks under a new id; an id already in use is refused (scopes never merge). */
  register(agentId: string, hooks: AgentHooks, info: AgentScopeInfo = { agentType: agentId, kind: 'other', cwd: process.cwd() }): AgentScope {
    if (this.scopes.has(agentId)) throw new Error(`agent id ${agentId} is already registered`);
    const copy: AgentHooks = {};
    for (const [k, v] of Object.entries(hooks) as Array<[AgentHookType, AgentHookEntry[] | undefined]>) if (v?.length) copy[k] = v.map((e) => ({ ...e }));
    const scope: AgentScope = { ...info, agentId, hooks: Object.freeze(copy), registeredAt: Date.now(), pending: [], typed: [], firstDelivered: false, inflight: new Set() };
    this.scopes.set(agentId, scope);
    return scope;
  }

  /** Forgets an agent and everything kept for it; returns whether it was registered. */
  unregister(agentId: string): boolean {
    return this.scopes.delete(agentId);
  }

  /** The agent's hooks of one type; none for an id that is not registered (dormant). */
  getHooks(agentId: string, hookType: AgentHookType): readonly AgentHookEntry[] {
    return this.scopes.get(agentId)?.hooks[hookType] ?? [];
  }

  get(agentId: string): AgentScope | undefined {
    return this.scopes.get(agentId);
  }

  has(agentId: string): boolean {
    return this.scopes.has(agentId);
  }

  /** The agents running in a pane (normally at most one). */
  byPane(paneId: string): AgentScope[] {
    return [...this.scopes.values()].filter((s) => s.paneId === paneId);
  }

  list(): AgentScope[] {
    return [...this.scopes.values()];
  }

  get size(): number {
    return this.scopes.size;
  }

  clearAll(): void {
    this.scopes.clear();
  }
}
