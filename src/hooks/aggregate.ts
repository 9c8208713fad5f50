// Runs the hooks of one event in order and folds their outcomes into one verdict (first failure wins, with its stderr).
import { cleanText } from '../core/text.js';
import { buildPayload, hookEnv, type HookContext } from './payload.js';
import { hooksFor, type PlannedHook } from './plan.js';
import { runCaptured, type RunResult } from './run.js';
import { isPaneId } from '../platform/pane-id.js';

export type GovEvent = { type: string; [k: string]: unknown };

export interface AggregateResult {
  ok: boolean;
  /** Why the operation fails: the failing hook's stderr (or what happened to it). */
  reason?: string;
  failedHook?: string;
  ran: number;
}

export interface RunHooksOptions {
  env: NodeJS.ProcessEnv;
  /** Gate events (SessionStart, PreToolUse) stop at the first failure; the others run every hook. */
  stopOnFailure: boolean;
  emit(e: GovEvent): void;
}

/** Fields every governance event carries so subscribers can filter by pane and tell agents apart. */
export function eventScope(c: Pick<HookContext, 'paneId' | 'agentId' | 'tool' | 'goalId'>): Record<string, unknown> {
  return {
    ...(isPaneId(c.paneId) ? { pane: c.paneId } : {}),
    ...(c.agentId ? { agent_id: c.agentId } : {}),
    ...(c.tool ? { tool: c.tool } : {}),
    ...(c.goalId ? { goal_id: c.goalId } : {}),
  };
}

function outcome(r: RunResult): 'ok' | 'failed' | 'timeout' | 'error' {
  if (r.spawnError) return 'error';
  if (r.timedOut) return 'timeout';
  return r.exitCode === 0 ? 'ok' : 'failed';
}

function failureReason(p: PlannedHook, r: RunResult): string {
  if (r.timedOut) return `hook ${p.id} timed out after ${p.timeoutMs} ms (killed with its process group)`;
  if (r.spawnError) return `hook ${p.id} could not start: ${r.spawnError}`;
  const stderr = cleanText(r.stderr.trim(), 2000);
  if (stderr) return stderr;
  return r.signal ? `hook ${p.id} was killed by ${r.signal}` : `hook ${p.id} exited with code ${r.exitCode}`;
}

export async function runHooks(planned: readonly PlannedHook[], c: HookContext, subject: string | undefined, o: RunHooksOptions): Promise<AggregateResult> {
  const { run, inert } = hooksFor(planned, c.event, subject);
  const scope = eventScope(c);
  for (const p of inert) {
    o.emit({ type: 'hook_inert', event: c.event, hook_id: p.id, command: p.hook.command, layer: p.layer, file: p.file, trust: p.trust, reason: p.inert, ...scope });
  }
  const input = JSON.stringify(buildPayload(c)) + '\n';
  let first: { reason: string; hook: string } | undefined;
  let ran = 0;
  for (const p of run) {
    ran++;
    let r: RunResult;
    try {
      r = await runCaptured({
        file: '/bin/sh',
        args: ['-c', p.hook.command],
        cwd: p.cwd,
        env: hookEnv(o.env, c, { hookId: p.id, projectRoot: p.cwd, configFile: p.file }),
        input,
        timeoutMs: p.timeoutMs,
      });
    } catch (e) {
      // A runner failure is a failed hook, never a skipped one.
      r = { exitCode: null, signal: null, stdout: '', stderr: '', truncated: false, timedOut: false, durationMs: 0, spawnError: (e as Error).message };
    }
    const result = outcome(r);
    const reason = result === 'ok' ? undefined : failureReason(p, r);
    o.emit({
      type: 'hook_run',
      event: c.event,
      hook_id: p.id,
      command: p.hook.command,
      layer: p.layer,
      file: p.file,
      outcome: result,
      exit_code: r.exitCode,
      signal: r.signal,
      duration_ms: r.durationMs,
      ...(reason ? { reason } : {}),
      ...(r.truncated ? { output_truncated: true } : {}),
      ...scope,
    });
    if (reason && !first) {
      first = { reason, hook: p.id };
      if (o.stopOnFailure) break;
    }
  }
  return first ? { ok: false, reason: first.reason, failedHook: first.hook, ran } : { ok: true, ran };
}
