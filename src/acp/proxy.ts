// `castellan acp -- AGENT ARGS`: an ACP agent for the editor that relays to an ACP agent, governing what passes through.
import { spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import type { ServerLink } from '../hooks/emit.js';
import type { GovEvent, GovernOptions } from '../hooks/pipeline.js';
import type { Paths } from '../platform/paths.js';
import { strictestGate } from './gates.js';
import { Governor } from './governor.js';
import { LineGuard, MAX_LINE_BYTES } from './line-guard.js';
import { ModeGuard } from './mode-guard.js';
import { unaskedFlags } from './modes.js';
import { Presence } from './presence.js';
import { loadSdk, type AcpSdk } from './sdk.js';

export interface AcpProxyOptions {
  /** The ACP agent to run (`gemini --acp`). */
  command: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  paths: Paths;
  /** The editor's side: what it writes (our stdin) and what it reads (our stdout). */
  input: Readable;
  output: Writable;
  /** Diagnostics (our stderr); the agent's stderr goes here too. */
  err(text: string): void;
  /** The server link for governance events and the herd pane (default: none). */
  link?: ServerLink | null;
  /** Open a pane in a running server that shows this session (herd list); default true. */
  pane?: boolean;
  /** Per-line limit both ways (default MAX_LINE_BYTES). */
  maxLineBytes?: number;
  /** Extra governance options (tests: audit file, verifier). */
  govern?: Partial<GovernOptions>;
}

/** The JSON-RPC code castellan answers with when it refuses or cannot relay (in the implementation-defined range). */
export const CASTELLAN_ERROR = -32001;
const STDERR_TAIL = 2000;

/** The id of a request from the first bytes of a line too long to parse, so its sender is not left waiting. */
function idFrom(head: string): string | number | null {
  const m = /"id"\s*:\s*(-?\d{1,15}|"(?:[^"\\]|\\.){0,200}")/.exec(head);
  if (!m) return null;
  return m[1].startsWith('"') ? (JSON.parse(m[1]) as string) : Number(m[1]);
}

function tooLarge(head: string, bytes: number, max: number): string {
  return `${JSON.stringify({ jsonrpc: '2.0', id: idFrom(head), error: { code: -32600, message: `Invalid request: message of ${bytes} bytes is over the ${max}-byte limit; dropped` } })}\n`;
}

/**
 * Why the agent's own command line must not start: a flag that makes it run tools without asking while the policy gates
 * one of them. Refused rather than stripped: castellan cannot know every spelling an agent accepts, and an agent started
 * with other flags than the user wrote behaves unlike what they configured; the message names the flag and the policy.
 */
async function flagRefusal(o: AcpProxyOptions, agentName: string): Promise<string | undefined> {
  const hits = unaskedFlags(o.command);
  if (!hits.length) return undefined;
  const tools = [...new Set(hits.flatMap((h) => [...h.skips]))];
  const gate = await strictestGate(tools, o.cwd, { env: o.env, paths: o.paths, ...o.govern });
  if (!gate) return undefined;
  const flags = hits.map((h) => h.flag).join(', ');
  return `castellan acp refused to start ${agentName}: ${flags} makes it run tools without asking for permission, and castellan's policy gates ${gate.tool} (${gate.reason}). Remove ${hits.length > 1 ? 'those flags' : 'that flag'}: castellan governs each call through the agent's permission requests.`;
}

/** The editor is answered with the refusal until it goes away, so it can show why (editors show a failed initialize). */
async function serveRefusal(sdk: AcpSdk, o: AcpProxyOptions, max: number, why: string): Promise<{ code: number; error: string }> {
  o.err(`${why}\n`);
  const fromEditor = o.input.pipe(new LineGuard(max, (bytes, head) => o.output.write(tooLarge(head, bytes, max))));
  const stream = sdk.ndJsonStream(Writable.toWeb(o.output) as WritableStream<Uint8Array>, Readable.toWeb(fromEditor) as ReadableStream<Uint8Array>, { maxMessageBytes: max * 2 });
  const conn = sdk
    .agent({ name: 'castellan-acp' })
    .onRequest('*', () => {
      throw new sdk.RequestError(CASTELLAN_ERROR, why);
    })
    .onNotification('*', () => undefined)
    .connect(stream);
  await conn.closed;
  o.input.unpipe();
  o.output.end?.();
  return { code: 2, error: why };
}

/** Runs the proxy until the editor goes away (0), the agent dies or cannot start (1), or its flags are refused (2). */
export async function runAcpProxy(o: AcpProxyOptions): Promise<{ code: number; error?: string }> {
  const sdk = await loadSdk();
  const max = o.maxLineBytes ?? MAX_LINE_BYTES;
  const agentName = o.command[0].split('/').pop() ?? 'agent';
  const refused = await flagRefusal(o, agentName);
  if (refused) return serveRefusal(sdk, o, max, refused);
  const presence = await Presence.open({ socket: o.paths.socket, agent: agentName, logFile: `${o.paths.stateDir}/acp/${process.pid}-${Date.now()}.log`, cwd: o.cwd, pane: o.pane !== false });
  presence.log(`castellan acp: ${o.command.join(' ')} (in ${o.cwd})`);

  const child = spawn(o.command[0], o.command.slice(1), { cwd: o.cwd, env: o.env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderrTail = '';
  child.stderr.on('data', (d: Buffer) => {
    stderrTail = (stderrTail + d.toString('utf8')).slice(-STDERR_TAIL);
    o.err(d.toString('utf8'));
  });
  // Writes to a dead agent fail; that is reported by the exit, not by a crash.
  child.stdin.on('error', () => undefined);
  o.output.on('error', () => undefined);

  let gone: string | undefined;
  const exited = new Promise<string>((resolve) => {
    child.on('error', (e) => resolve(`the agent could not start: ${e.message}`));
    child.on('exit', (code, signal) => {
      const tail = stderrTail.trim().split('\n').slice(-3).join(' | ');
      resolve(`the agent exited (${signal ? `signal ${signal}` : `code ${code}`})${tail ? `: ${tail}` : ''}`);
    });
  }).then((why) => (gone = why));

  const fromAgent = child.stdout.pipe(new LineGuard(max, (bytes, head) => child.stdin.write(tooLarge(head, bytes, max))));
  const fromEditor = o.input.pipe(new LineGuard(max, (bytes, head) => o.output.write(tooLarge(head, bytes, max))));
  const agentStream = sdk.ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(fromAgent) as ReadableStream<Uint8Array>, { maxMessageBytes: max * 2 });
  const editorStream = sdk.ndJsonStream(Writable.toWeb(o.output) as WritableStream<Uint8Array>, Readable.toWeb(fromEditor) as ReadableStream<Uint8Array>, { maxMessageBytes: max * 2 });

  // eslint-disable-next-line prefer-const
  let toAgent: ReturnType<ReturnType<typeof sdk.client>['connect']>;
  let toEditor: ReturnType<ReturnType<typeof sdk.agent>['connect']> | undefined;
  const gov = new Governor({
    agentName,
    cwd: o.cwd,
    paneId: presence.paneId,
    presence,
    governOpts: { env: o.env, paths: o.paths, link: o.link ?? null, prompt: 'defer', ...o.govern },
    toEditor: (method, params) => toEditor?.client.notify(method, params) ?? Promise.resolve(),
    toAgent: (method, params) => toAgent.agent.notify(method, params),
  });
  const modes = new ModeGuard({
    governOpts: { env: o.env, paths: o.paths, link: o.link ?? null, ...o.govern },
    cwdOf: (id) => gov.cwdOf(id),
    requestAgent: (method, params) => toAgent.agent.request(method, params),
    notifyAgent: (method, params) => toAgent.agent.notify(method, params),
    toEditor: (method, params) => toEditor?.client.notify(method, params) ?? Promise.resolve(),
    record: (e, id) => gov.record(e, id),
    log: (line) => presence.log(line),
  });

  // A request cut off by the agent's death is answered with why it died (its exit may land just after its EOF).
  const relayError = async (e: unknown): Promise<never> => {
    let t: NodeJS.Timeout | undefined;
    await Promise.race([exited, new Promise((r) => (t = setTimeout(r, 1000)))]).finally(() => clearTimeout(t));
    if (gone) throw new sdk.RequestError(CASTELLAN_ERROR, `castellan acp: ${gone}`);
    throw e;
  };
  // The agent's notifications reach the editor in order, and before the answer to the request they belong to.
  let forwarded: Promise<unknown> = Promise.resolve();

  let inFlight = 0;
  const editorApp = sdk
    .agent({ name: 'castellan-acp' })
    .onRequest('*', async ({ method, params }) => {
      if (gone) throw new sdk.RequestError(CASTELLAN_ERROR, `castellan acp: ${gone}`);
      inFlight++;
      try {
        // A mode that would run gated tools unasked never reaches the agent; the editor gets the policy's reason.
        const modeRefused = await modes.check(method, params);
        if (modeRefused) throw new sdk.RequestError(CASTELLAN_ERROR, modeRefused);
        if (method === 'session/prompt') gov.turn(params, 'start');
        const r = await toAgent.agent.request(method, params).catch(relayError);
        await forwarded;
        if (method === 'session/set_mode') modes.changed(method, params);
        if (method === 'session/new' || method === 'session/load' || method === 'session/resume') {
          const id = (r as { sessionId?: string } | null)?.sessionId ?? (params as { sessionId?: string } | null)?.sessionId;
          const badMode = typeof id === 'string' ? await modes.opened(id, r) : undefined;
          if (badMode) throw new sdk.RequestError(CASTELLAN_ERROR, badMode);
          const refused = await gov.sessionStarted(method, params, r);
          if (refused) throw new sdk.RequestError(CASTELLAN_ERROR, refused);
        }
        if (method === 'session/close') await gov.sessionEnded(params, 'closed');
        return r;
      } finally {
        if (method === 'session/prompt') gov.turn(params, 'end');
        inFlight--;
      }
    })
    .onNotification('*', ({ method, params }) => {
      if (!gone) void toAgent.agent.notify(method, params).catch(() => undefined);
    });

  const agentApp = sdk
    .client({ name: 'castellan-acp' })
    .onRequest('*', async ({ method, params }) => {
      if (method === 'session/request_permission') {
        // The agent's updates sent before this request reach the editor first (so castellan's own announce cannot race them).
        await forwarded;
        const refusal = await gov.permission(params);
        if (refusal) return refusal;
      }
      if (!toEditor) throw new sdk.RequestError(CASTELLAN_ERROR, 'castellan acp: no editor connected');
      return toEditor.client.request(method, params);
    })
    .onNotification('*', async ({ method, params }) => {
      // In order; a tool update waits for castellan's verdict on its call, so an unpermitted call is never shown as a fine run.
      const sent = forwarded
        .then(async () => {
          for (const p of method === 'session/update' ? await gov.relay(params) : [params]) await toEditor?.client.notify(method, p);
        })
        .catch(() => undefined);
      forwarded = sent;
      await sent;
      if (method === 'session/update') await Promise.all([gov.after(params), modes.agentChanged(params)]);
    });

  toAgent = agentApp.connect(agentStream);
  toEditor = editorApp.connect(editorStream);

  const editorGone = toEditor.closed.then(() => 'editor');
  const why = await Promise.race([editorGone, exited.then(() => 'agent')]);
  let result: { code: number; error?: string };
  if (why === 'agent') {
    presence.log(`castellan acp: ${gone}`);
    // Let the editor's pending requests get their error answers, then tell it and end its session.
    await gov.event({ type: 'acp_agent_exited', reason: gone });
    const deadline = Date.now() + 1000;
    while (inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await gov.endAll('failed');
    toEditor.close();
    toAgent.close();
    result = { code: 1, error: gone };
  } else {
    presence.log('castellan acp: the editor closed the connection');
    await gov.endAll('closed');
    toAgent.close();
    child.stdin.end();
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 2000);
    await exited;
    clearTimeout(killer);
    result = { code: 0 };
  }
  presence.report('done', result.error ?? 'ACP session ended');
  await presence.close();
  o.input.unpipe();
  o.output.end?.();
  return result;
}
