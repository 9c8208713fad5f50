// ACP test rig: the proxy in-process between the SDK's own client (the "editor") and the scripted agent (a real process).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { runAcpProxy, EVENT_METHOD, type AcpProxyOptions } from '../../src/acp/index.js';
import { loadSdk, type Acp } from '../../src/acp/sdk.js';
import { resolvePaths, type Paths } from '../../src/platform/paths.js';

export const FAKE_AGENT = fileURLToPath(new URL('./fake-acp-agent.mjs', import.meta.url));

export interface Rig {
  home: string;
  paths: Paths;
  env: Record<string, string>;
  agentLog: string;
  /** What the editor saw: session updates and castellan events, in order. */
  updates: Acp.SessionNotification[];
  events: Array<Record<string, unknown>>;
  /** Permission requests that reached the editor. */
  asked: Acp.RequestPermissionRequest[];
  ctx: Acp.ClientContext;
  /** Raw lines to the proxy's stdin, around the SDK (hostile editor). */
  rawToProxy(line: string): void;
  /** Raw lines the proxy wrote to the editor. */
  fromProxy(): string[];
  done: Promise<{ code: number; error?: string }>;
  stderr: string[];
  /** The editor goes away (stdin ends); resolves when the proxy is done. */
  end(): Promise<{ code: number; error?: string }>;
  /** end(), then the temp HOME is removed (idempotent). */
  close(): Promise<void>;
}

export interface RigOptions {
  /** castellan config (TOML) for the user layer. */
  config?: string;
  command?: string[];
  /** The editor's answer to a permission request that reaches it. */
  answer?: 'yes' | 'no';
  proxy?: Partial<AcpProxyOptions>;
  env?: Record<string, string>;
}

export async function makeRig(o: RigOptions = {}): Promise<Rig> {
  const sdk = await loadSdk();
  const home = mkdtempSync(join(tmpdir(), 'cacp-'));
  const env: Record<string, string> = { HOME: home, PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', FAKE_ACP_LOG: join(home, 'agent-in.log'), ...o.env };
  const paths = resolvePaths({ env });
  if (o.config) {
    const { mkdirSync, writeFileSync } = await import('node:fs');
    mkdirSync(join(home, '.castellan'), { recursive: true });
    writeFileSync(join(home, '.castellan', 'config.toml'), o.config);
  }
  const toProxy = new PassThrough();
  const fromProxy = new PassThrough();
  const raw: string[] = [];
  const tee = new PassThrough();
  let buf = '';
  fromProxy.on('data', (d: Buffer) => {
    buf += d.toString('utf8');
    const lines = buf.split('\n');
    buf = lines.pop() ?? '';
    raw.push(...lines);
    tee.write(d);
  });
  fromProxy.on('end', () => tee.end());
  const stderr: string[] = [];
  const done = runAcpProxy({
    command: o.command ?? [process.execPath, FAKE_AGENT],
    cwd: home,
    env,
    paths,
    input: toProxy,
    output: fromProxy,
    err: (t) => stderr.push(t),
    link: null,
    pane: false,
    govern: { audit: paths.auditLog },
    ...o.proxy,
  });
  const updates: Acp.SessionNotification[] = [];
  const events: Array<Record<string, unknown>> = [];
  const asked: Acp.RequestPermissionRequest[] = [];
  const editor = sdk
    .client({ name: 'test-editor' })
    .onRequest('session/request_permission', ({ params }) => {
      asked.push(params);
      return { outcome: { outcome: 'selected', optionId: o.answer ?? 'yes' } };
    })
    .onNotification('session/update', ({ params }) => {
      updates.push(params);
    })
    .onNotification(EVENT_METHOD, (x: unknown) => x as { event: Record<string, unknown> }, ({ params }) => {
      events.push(params.event);
    });
  const conn = editor.connect(sdk.ndJsonStream(Writable.toWeb(toProxy) as WritableStream<Uint8Array>, Readable.toWeb(tee) as ReadableStream<Uint8Array>));
  return {
    home,
    paths,
    env,
    agentLog: env.FAKE_ACP_LOG,
    updates,
    events,
    asked,
    ctx: conn.agent,
    rawToProxy: (line) => toProxy.write(line),
    fromProxy: () => raw,
    done,
    stderr,
    async end() {
      toProxy.end();
      const r = await done;
      conn.close();
      return r;
    },
    async close() {
      toProxy.end();
      await done;
      conn.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

export async function session(r: Rig): Promise<string> {
  await r.ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  const s = await r.ctx.request('session/new', { cwd: r.home, mcpServers: [] });
  return s.sessionId;
}

export const prompt = (r: Rig, sessionId: string, text: string) => r.ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });

export const agentSaw = (r: Rig): string => {
  try {
    return readFileSync(r.agentLog, 'utf8');
  } catch {
    return '';
  }
};

/** The text the editor was shown for a tool call's final update. */
export function refusalText(r: Rig, toolCallId: string): string | undefined {
  for (const u of r.updates) {
    const x = u.update as { sessionUpdate: string; toolCallId?: string; status?: string; content?: Array<{ content?: { text?: string } }> };
    if (x.sessionUpdate === 'tool_call_update' && x.toolCallId === toolCallId && x.status === 'failed' && x.content?.[0]?.content?.text) return x.content[0].content.text;
  }
  return undefined;
}

export const messages = (r: Rig): string[] =>
  r.updates.flatMap((u) => {
    const x = u.update as { sessionUpdate: string; content?: { text?: string } };
    return x.sessionUpdate === 'agent_message_chunk' && x.content?.text ? [x.content.text] : [];
  });
