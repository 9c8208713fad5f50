// The four agents agent-lab added that speak ACP (opencode `acp`, Kilo `acp`, Copilot CLI `--acp`, Qwen Code `--acp`),
// each behind `castellan acp` with `[governance.permissions] shell = "deny"`: the mock model asks for `touch …`, the
// agent asks permission over ACP (or runs it unasked), and whichever way, the command never runs and the editor is told
// `castellan denied …`. Opt-in, like gemini-lab.test.ts (real agents are CPU-heavy; one runs at a time):
//   CASTELLAN_LAB=1 node scripts/run-tests.mjs agents-lab        (CASTELLAN_LAB_AGENTS=qwen,copilot to pick)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { loadSdk, type Acp } from '../../src/acp/sdk.js';
import { resolvePaths } from '../../src/platform/paths.js';
import { BIN, tempEnvFor } from '../support/temp-env.js';
import { waitFor } from '../support/wait-for.js';

const LAB = process.env.AGENT_LAB_DIR ?? '/work/shared/agent-lab';
const INSTALLS = join(process.env.AGENT_LAB_HOME ?? join(homedir(), '.cache', 'agent-lab'), 'installs');
const log = (s: string) => process.env.CASTELLAN_LAB_VERBOSE && process.stderr.write(`[acp-lab] ${s}\n`);

interface LabAgent {
  name: string;
  version: string;
  /** The ACP command line after the binary. */
  acp: string[];
  /** The agent's lab environment (run-agent.sh), given the mock's URL. */
  env(url: string): Record<string, string>;
}

const AGENTS: LabAgent[] = [
  {
    name: 'opencode',
    version: '1.18.33',
    acp: ['acp'],
    env: () => ({ OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_MODELS_FETCH: '1', OPENCODE_DISABLE_DEFAULT_PLUGINS: '1', OPENCODE_DISABLE_SHARE: '1', OPENCODE_DISABLE_LSP_DOWNLOAD: '1', OPENCODE_DISABLE_CLAUDE_CODE: '1' }),
  },
  {
    name: 'kilo',
    version: '7.7.7',
    acp: ['acp'],
    env: () => ({ KILO_DISABLE_AUTOUPDATE: '1', KILO_DISABLE_MODELS_FETCH: '1', KILO_DISABLE_DEFAULT_PLUGINS: '1', KILO_DISABLE_SHARE: '1', KILO_DISABLE_LSP_DOWNLOAD: '1', KILO_DISABLE_CLAUDE_CODE: '1', KILO_DISABLE_SESSION_INGEST: '1', KILO_DISABLE_PRESENCE: '1', KILO_TELEMETRY_LEVEL: 'off' }),
  },
  {
    name: 'copilot',
    version: '1.0.102',
    acp: ['--acp'],
    env: (url) => ({ COPILOT_OFFLINE: 'true', COPILOT_PROVIDER_BASE_URL: `${url}/v1`, COPILOT_PROVIDER_TYPE: 'openai', COPILOT_PROVIDER_API_KEY: 'sk-test', COPILOT_MODEL: 'mock-model', COPILOT_AUTO_UPDATE: 'false', COPILOT_PROVIDER_MAX_PROMPT_TOKENS: '128000', COPILOT_PROVIDER_MAX_OUTPUT_TOKENS: '8192' }),
  },
  {
    name: 'qwen',
    version: '0.24.4',
    acp: ['--acp'],
    env: (url) => ({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${url}/v1`, OPENAI_MODEL: 'mock-model', QWEN_CODE_NO_RELAUNCH: '1' }),
  },
];

const picked = process.env.CASTELLAN_LAB_AGENTS?.split(',');

for (const a of AGENTS) {
  const bin = join(INSTALLS, a.name, 'node_modules', '.bin', a.name);
  const skip = !process.env.CASTELLAN_LAB
    ? 'set CASTELLAN_LAB=1 to run the real-agent ACP checks'
    : picked && !picked.includes(a.name)
      ? `not in CASTELLAN_LAB_AGENTS`
      : !existsSync(bin)
        ? `no ${a.name} at ${bin} (agent-lab/install.sh ${a.name})`
        : false;

  test(`${a.name} ${a.acp.join(' ')} behind castellan acp, shell = "deny": the command never runs and the editor is told why`, { skip, timeout: 300_000 }, async (t) => {
    const sdk = await loadSdk();
    const env = tempEnvFor(t);
    const work = join(env.root, 'work');
    mkdirSync(work, { recursive: true });
    const mockEnv = { ...env.env, MOCK_SLOW_SECONDS: '1' };
    const port = execFileSync(process.execPath, [join(LAB, 'mock', 'mockctl.js'), 'ensure', '--state', join(env.root, 'mock')], { env: mockEnv, encoding: 'utf8' }).trim();
    t.after(() => execFileSync(process.execPath, [join(LAB, 'mock', 'mockctl.js'), 'stop', '--state', join(env.root, 'mock')], { env: mockEnv, stdio: 'ignore' }));
    execFileSync(process.execPath, [join(LAB, 'lib', 'prepare.js'), a.name, env.home, work, port], { env: { ...env.env, LAB_VERSION: a.version } });
    mkdirSync(join(env.home, '.castellan'), { recursive: true });
    writeFileSync(join(env.home, '.castellan', 'config.toml'), '[governance.permissions]\nshell = "deny"\n');
    const childEnv: Record<string, string> = { ...env.env, COLORTERM: 'truecolor', ...a.env(`http://127.0.0.1:${port}`) };
    const child = spawn(process.execPath, [BIN, 'acp', '--no-pane', '--', bin, ...a.acp], { env: childEnv, cwd: work, stdio: ['pipe', 'pipe', 'pipe'] });
    t.after(() => child.kill('SIGKILL'));
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((r) => child.on('exit', (c) => r(c)));

    const updates: Acp.SessionNotification[] = [];
    const asked: unknown[] = [];
    const conn = sdk
      .client({ name: 'lab-editor' })
      .onRequest('session/request_permission', ({ params }) => {
        asked.push(params);
        log(`editor asked: ${JSON.stringify(params).slice(0, 300)}`);
        return { outcome: { outcome: 'selected', optionId: params.options[0].optionId } };
      })
      .onNotification('session/update', ({ params }) => {
        log(`update: ${JSON.stringify(params.update).slice(0, 300)}`);
        updates.push(params);
      })
      .connect(sdk.ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>));
    const init = await conn.agent.request('initialize', { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false } });
    log(`initialize: ${JSON.stringify(init).slice(0, 400)}`);
    const s = await conn.agent.request('session/new', { cwd: work, mcpServers: [] });
    log(`session/new: ${JSON.stringify({ modes: s.modes, configOptions: (s as { configOptions?: unknown }).configOptions }).slice(0, 800)}`);
    const turn = conn.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'Please RUN: touch castellan-was-here' }] });
    turn.then((r) => log(`turn: ${JSON.stringify(r)}`), (e) => log(`turn error: ${(e as Error).message}`));
    const audit = () => readFileSync(resolvePaths({ env: childEnv }).auditLog, 'utf8');
    await waitFor(
      () => updates.some((u) => {
        const x = u.update as { status?: string; content?: Array<{ content?: { text?: string } }> };
        return x.status === 'failed' && /castellan denied/.test(x.content?.[0]?.content?.text ?? '');
      }),
      { timeoutMs: 180_000, message: `${a.name}: the denied call reached the editor`, observe: () => ({ updates: JSON.stringify(updates.slice(-4)).slice(0, 2000), stderr: stderr.slice(-1500) }) },
    );
    await Promise.race([turn.catch(() => undefined), new Promise((r) => setTimeout(r, 15_000))]);
    assert.equal(asked.length, 0, 'the editor was never asked about a call castellan denied');
    assert.equal(existsSync(join(work, 'castellan-was-here')), false, 'the denied command did not run');
    // The argv is the command when the agent sent it before castellan decided; a policy deny of the tool on first sight
    // (Qwen announces the call before its input) stands, and its argv is the title.
    const denies = audit().split('\n').filter((l) => /"type":"governance_decision","decision":"deny"/.test(l) && /"tool":"shell"/.test(l));
    log(`audit: ${denies.join('\n').slice(0, 800)} ${/acp_unpermitted_run/.test(audit()) ? '(ran unasked: turn cancelled)' : '(asked: refused)'}`);
    assert.ok(denies.length >= 1, audit().slice(-2000));
    // Each one's own default mode asks (src/acp/modes.ts knows it): castellan did not have to switch the session.
    assert.doesNotMatch(audit(), /acp_mode_changed|acp_session_refused/);
    child.stdin.end();
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    conn.close();
  });
}
