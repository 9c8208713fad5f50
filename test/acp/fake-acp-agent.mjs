// A scripted ACP agent for tests (the official SDK's agent side). The prompt text says what to do:
//   TOOL {toolCall json}      report the call, ask permission, then complete it (or fail it when refused)
//   NOASK {toolCall json}     report the call as running and complete it without asking
//   PERMIT {toolCall json}    ask permission first, announcing nothing (as Gemini does), then report the outcome
//   LATE {toolCall json}      report the call with an empty rawInput first (as Qwen Code does while it is "preparing"
//                             it; `preparing` in the json: that rawInput instead), then ask permission with the whole input
//   MODE <id>                 switch its own mode (a current_mode_update), as an agent's plan-exit tool does
// Modes (session/set_mode; FAKE_ACP_MODE or --yolo for the first): in "yolo", and in "autoEdit" for edits, TOOL runs
// the call without asking, as real agents do. A call that runs and says `touch <file>` creates the file (nothing else
// is ever executed), so a test can see whether a denied command really ran.
//   GARBAGE                   write a line that is not JSON and one over 2 MiB, then answer normally
//   FLOOD n                   send n message chunks, then answer
//   DIE                       exit with code 3 in the middle of the turn (after a line on stderr)
// Every line it receives is appended to $FAKE_ACP_LOG (to see what the proxy answered).
import { appendFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { PassThrough, Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';

const log = process.env.FAKE_ACP_LOG;
const input = new PassThrough();
process.stdin.on('data', (d) => {
  if (log) appendFileSync(log, d);
  input.write(d);
});
process.stdin.on('end', () => input.end());

const text = (p) => (p.prompt ?? []).map((b) => b.text ?? '').join(' ');
const chunk = (client, sessionId, t) => client.notify('session/update', { sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: t } } });

const MODES = [
  { id: 'default', name: 'Default', description: 'Prompts for approval' },
  { id: 'autoEdit', name: 'Auto Edit', description: 'Auto-approves edit tools' },
  { id: 'yolo', name: 'YOLO', description: 'Auto-approves all tools' },
  { id: 'plan', name: 'Plan', description: 'Read-only mode' },
];
const startMode = process.argv.includes('--yolo') ? 'yolo' : (process.env.FAKE_ACP_MODE ?? 'default');
/** sessionId → { mode, cwd } */
const sessions = new Map();
const unasked = (sessionId, call) => {
  const m = sessions.get(sessionId)?.mode;
  return m === 'yolo' || (m === 'autoEdit' && call.kind === 'edit');
};
/** The only thing this agent ever executes: `touch <file>` (so a denied call that runs leaves a trace, and nothing worse). */
const run = (sessionId, call) => {
  const m = /^touch ([\w.-]+)$/.exec(String(call.rawInput?.command ?? ''));
  if (m) writeFileSync(resolve(sessions.get(sessionId)?.cwd ?? '.', m[1]), 'ran\n');
};

acp
  .agent({ name: 'fake-acp-agent' })
  .onRequest('initialize', ({ params }) => ({ protocolVersion: params.protocolVersion, agentCapabilities: { loadSession: false }, authMethods: [] }))
  .onRequest('session/new', ({ params }) => {
    const sessionId = `s-${Math.random().toString(16).slice(2, 8)}`;
    sessions.set(sessionId, { mode: startMode, cwd: params.cwd });
    return { sessionId, modes: { currentModeId: startMode, availableModes: MODES } };
  })
  .onRequest('session/set_mode', ({ params }) => {
    const s = sessions.get(params.sessionId);
    if (!s || !MODES.some((m) => m.id === params.modeId)) throw new acp.RequestError(-32602, `no mode ${params.modeId}`);
    s.mode = params.modeId;
    return {};
  })
  .onNotification('session/cancel', () => {
    if (log) appendFileSync(log, '#cancelled\n');
  })
  .onRequest('session/prompt', async ({ params, client }) => {
    const sessionId = params.sessionId;
    const t = text(params);
    const [word, ...restWords] = t.split(' ');
    const rest = restWords.join(' ');
    if (word === 'MODE') {
      sessions.get(sessionId).mode = rest;
      await client.notify('session/update', { sessionId, update: { sessionUpdate: 'current_mode_update', currentModeId: rest } });
      await chunk(client, sessionId, `now in ${rest}`);
      return { stopReason: 'end_turn' };
    }
    if (word === 'TOOL' || word === 'NOASK' || word === 'PERMIT' || word === 'LATE') {
      const call = JSON.parse(rest);
      if (word === 'NOASK' || (word === 'TOOL' && unasked(sessionId, call))) {
        await client.notify('session/update', { sessionId, update: { sessionUpdate: 'tool_call', status: 'in_progress', ...call } });
        run(sessionId, call);
        await client.notify('session/update', { sessionId, update: { sessionUpdate: 'tool_call_update', toolCallId: call.toolCallId, status: 'completed' } });
        await chunk(client, sessionId, 'ran it without asking');
        return { stopReason: 'end_turn' };
      }
      if (word === 'TOOL') await client.notify('session/update', { sessionId, update: { sessionUpdate: 'tool_call', status: 'pending', ...call } });
      if (word === 'LATE') {
        // `preparing`: the rawInput of the first report (default {}); opencode and Kilo send {cwd}.
        const { preparing, ...shown } = call;
        await client.notify('session/update', { sessionId, update: { sessionUpdate: 'tool_call', status: 'pending', ...shown, rawInput: preparing ?? {} } });
      }
      const r = await client.request('session/request_permission', {
        sessionId,
        toolCall: { toolCallId: call.toolCallId, title: call.title, kind: call.kind, rawInput: call.rawInput },
        options: [
          { optionId: 'yes', name: 'Allow', kind: 'allow_once' },
          { optionId: 'no', name: 'Reject', kind: 'reject_once' },
        ],
      });
      const allowed = r.outcome.outcome === 'selected' && r.outcome.optionId === 'yes';
      if (allowed) run(sessionId, call);
      await client.notify('session/update', { sessionId, update: { sessionUpdate: 'tool_call_update', toolCallId: call.toolCallId, status: allowed ? 'completed' : 'failed' } });
      await chunk(client, sessionId, allowed ? 'tool ran' : `tool refused (${r.outcome.outcome} ${r.outcome.optionId ?? ''})`);
      return { stopReason: 'end_turn' };
    }
    if (word === 'GARBAGE') {
      // Written around the SDK's writer: wait for each to be flushed so the SDK's next write is not refused meanwhile.
      const raw = (s) => new Promise((r) => process.stdout.write(s, r));
      await raw('{this is not json\n');
      await raw(`{"jsonrpc":"2.0","id":777,"method":"fs/read_text_file","params":{"x":"${'y'.repeat(2 * 1024 * 1024)}"}}\n`);
      await chunk(client, sessionId, 'still here');
      return { stopReason: 'end_turn' };
    }
    if (word === 'FLOOD') {
      for (let i = 0; i < Number(rest); i++) void chunk(client, sessionId, `chunk ${i} ${'z'.repeat(200)}`);
      await chunk(client, sessionId, 'flood done');
      return { stopReason: 'end_turn' };
    }
    if (word === 'DIE') {
      process.stderr.write('fake agent: dying on purpose\n');
      process.exit(3);
    }
    await chunk(client, sessionId, `echo: ${t}`);
    return { stopReason: 'end_turn' };
  })
  .connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(input)));
