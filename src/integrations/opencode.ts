// opencode's and Kilo CLI's plugin events (sent by share/integrations/opencode/castellan.js as `castellan hook opencode|kilo EVENT`) → castellan stages and badge states (checked against agent-lab payloads, opencode 1.18.33 and Kilo CLI 7.7.7).
import type { AgentName, EventRow, HarnessTable } from './types.js';

/** The same events in both (Kilo CLI is an opencode fork); the payload is `{hook_event_name, ...event.properties}`. */
const ROWS: readonly EventRow[] = [
  { event: 'chat.message', stage: 'UserPromptSubmit', state: 'working', install: true, evidence: 'lab', note: 'the typed chat.message hook: the user\'s message' },
  {
    event: 'session.status',
    stage: null,
    state: null,
    cases: [{ field: 'status.type', equals: 'busy', state: 'working' }],
    install: true,
    evidence: 'lab',
    note: 'busy → working; idle → — (session.idle follows)',
  },
  { event: 'session.idle', stage: 'Stop', state: 'done', install: true, evidence: 'lab', note: 'the turn\'s end; also after Reject or an interrupt' },
  {
    event: 'permission.asked',
    stage: 'PermissionRequest',
    state: 'blocked',
    message: ['{permission}: {metadata.command}', '{permission}'],
    install: true,
    evidence: 'lab',
    note: 'after tool.execute.before (castellan has judged the call by then)',
  },
  {
    event: 'permission.replied',
    stage: null,
    state: null,
    cases: [{ field: 'reply', equals: ['once', 'always'], state: 'working' }],
    install: true,
    evidence: 'lab',
    note: 'once/always → working; reject → — (session.idle follows)',
  },
  { event: 'tool.execute.before', stage: 'PreToolUse', state: 'working', install: true, evidence: 'lab', note: 'before the permission dialog; the plugin throws on a deny' },
  { event: 'tool.execute.after', stage: 'PostToolUse', state: 'working', install: true, evidence: 'lab' },
  { event: 'session.created', stage: 'SessionStart', state: null, install: false, evidence: 'lab', note: 'at the first prompt, not at launch' },
  { event: 'session.error', stage: null, state: null, install: false, evidence: 'lab', note: 'MessageAbortedError on Esc Esc; session.idle follows' },
  { event: 'message.updated', stage: null, state: null, install: false, evidence: 'lab' },
  { event: 'message.part.updated', stage: 'PostSampling', state: null, install: false, evidence: 'lab', note: 'once per streamed part: too chatty' },
  { event: 'session.updated', stage: null, state: null, install: false, evidence: 'lab' },
  { event: 'session.diff', stage: null, state: null, install: false, evidence: 'lab' },
  { event: 'message.part.delta', stage: null, state: null, install: false, evidence: 'lab', note: 'every streamed token' },
  { event: 'plugin.init', stage: null, state: null, install: false, evidence: 'lab', note: 'the lab plugin\'s own start marker' },
  { event: 'reference.updated', stage: null, state: null, install: false, evidence: 'lab' },
  { event: 'integration.updated', stage: null, state: null, install: false, evidence: 'lab' },
];

/** Kilo CLI 7.7.7 also fires these. */
const KILO_ROWS: readonly EventRow[] = [
  { event: 'message.part.removed', stage: null, state: null, install: false, evidence: 'lab' },
  { event: 'session.drain.interrupted', stage: null, state: null, install: false, evidence: 'lab', note: 'on an interrupt; session.idle follows' },
];

function table(agent: AgentName, label: string, version: string, rows: readonly EventRow[]): HarnessTable {
  const v = version.split(' ').pop();
  return {
    agent,
    label,
    transport: `castellan ${label} plugin (bus events and tool.execute.before/after, each as \`castellan hook ${agent} EVENT\` with payload JSON on stdin; ${version})`,
    // castellan's plugin throws on {decision: "deny", reason}: opencode stops the call and shows the reason as its error.
    tools: {
      pre: [{ event: 'tool.execute.before', answer: { exitCode: 0, stdout: { decision: 'deny', reason: '{reason}' } } }],
      post: 'tool.execute.after',
      name: 'tool',
      input: ['args'],
      session: 'sessionID',
      prompt: 'ui',
    },
    promptAnswered: false,
    live:
      `verified live (agent-lab, ${label} ${v} in a castellan pane, \`castellan integrations install ${agent}\`): with shell = "deny" a shell call is stopped at tool.execute.before, ` +
      `\`Tool finished. Result: castellan: …\` on its screen, nothing run; allowed, it runs after ${label}'s own dialog; each call audited once; badge working → blocked → done`,
    rows,
  };
}

export const OPENCODE = table('opencode', 'opencode', 'opencode 1.18.33', ROWS);
export const KILO = table('kilo', 'Kilo CLI', 'Kilo CLI 7.7.7', [...ROWS, ...KILO_ROWS]);
