// Which governance and hook events become a notice in the clients' bar, and its wording.

/** Governance outcomes the user should see in the bar, not only in the audit log. */
export function governanceNotice(e: { type: string; [k: string]: unknown }): { level: 'info' | 'warning' | 'error'; message: string } | undefined {
  const who = [e.agent_id, e.pane_id].filter(Boolean).join(' in ');
  const what = Array.isArray(e.argv) ? (e.argv as string[]).join(' ').slice(0, 80) : String(e.tool ?? '');
  if (e.type === 'PlanVerifyDenied') return { level: 'warning', message: `plan verify denied ${what}${who ? ` (${who})` : ''}: ${e.reason ?? e.kind}` };
  if (e.type === 'PlanVerifyPassed') return { level: 'info', message: `plan verify passed: ${what}` };
  if (e.type === 'governance_decision' && e.decision === 'deny') return { level: 'warning', message: `denied ${e.tool ?? ''} ${what}: ${e.reason ?? ''}` };
  if (e.type === 'hook_run' && e.outcome !== 'ok') return { level: 'error', message: `hook ${e.hook_id ?? e.command} ${e.outcome}: ${e.reason ?? ''}` };
  if (e.type === 'hook_inert') return { level: 'warning', message: `hook not run: ${e.reason ?? e.command}` };
  // A configured hook stage the running agent's harness never fires: say so instead of pretending it runs.
  if (e.type === 'hook_unsupported') return { level: 'warning', message: String(e.message ?? '') };
  // A failing per-agent hook never stops its agent, but the user should know it did nothing.
  if (e.type === 'agent_hook_run' && e.outcome !== 'ok' && e.outcome !== 'deny') return { level: 'warning', message: `${e.agent_id} ${e.hook_type} hook ${e.outcome}, ignored: ${e.reason ?? ''}` };
  return undefined;
}
