// E2E (issue 13): prefix s, a pane of another session, Enter → this terminal moves to that session's server with the pane focused, and back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ApiClient } from '../../src/api/client.js';
import { tempEnvFor, type TempEnv } from '../support/temp-env.js';
import { KEY, PROMPT_RE, startAttached, type TermHarness } from '../support/term-harness.js';
import { waitFor } from '../support/wait-for.js';

const T = { timeoutMs: 20_000 };

function session(env: TempEnv, name: string) {
  const socket = join(env.home, '.config', 'castellan', `${name}.sock`);
  const call = async <R>(method: string, params: unknown = {}): Promise<R> => {
    const c = await ApiClient.connect(socket, 3000);
    try {
      return await c.request<R>(method, params, { timeoutMs: 5000 });
    } finally {
      c.close();
    }
  };
  return {
    call,
    clients: async () => (await call<{ clients: number }>('ping')).clients,
    /** The pane a client of this server shows (`focused`), or with none attached the window's active one. */
    focused: async (how: 'focused' | 'active' = 'focused') => (await call<{ panes: Array<{ pane_id: string; focused: boolean; active: boolean }> }>('pane.list')).panes.find((p) => p[how])?.pane_id,
    read: async (pane: string) => (await call<{ lines: string[] }>('pane.read', { pane_id: pane })).lines,
  };
}

const bar = async (h: TermHarness) => (await h.screenText()).at(-1) ?? '';

/** prefix s, filter down to the one pane titled `title`, Enter. */
async function choose(h: TermHarness, title: string): Promise<void> {
  h.prefix('s');
  await h.waitForText(/choose a pane/, T);
  h.write('/' + title);
  await h.waitForText(new RegExp(`filter: ${title}█`), T);
  await h.waitForText(new RegExp(`›\\s+w1:p1\\s+${title}`), T);
  h.write(KEY.enter);
}

async function started(env: TempEnv, name: string): Promise<void> {
  const r = await env.cli(['new', '-d', '-s', name], { timeoutMs: 20_000 });
  assert.equal(r.code, 0, r.stderr);
}

test('choose-tree: Enter on a pane of session beta moves the client there (that pane focused, keys go to it) and back to alpha; one key is one character', async (t) => {
  const env = tempEnvFor(t);
  const alpha = session(env, 'alpha');
  const beta = session(env, 'beta');
  await started(env, 'beta');
  assert.equal((await env.cli(['--session', 'beta', 'pane', 'split'])).code, 0);
  assert.equal((await env.cli(['--session', 'beta', 'pane', 'rename', '--pane', 'w1:p1', 'beta-target'])).code, 0);
  await waitFor(async () => (await beta.focused('active')) === 'w1:p2', { message: 'the split pane is the active one in beta', ...T });
  await waitFor(async () => (await beta.read('w1:p1')).some((l) => PROMPT_RE.test(l)), { message: 'beta w1:p1 has a prompt', ...T });

  const h = await startAttached(env, { cols: 120, rows: 32, args: ['new', '-s', 'alpha'], timeoutMs: 30_000 });
  assert.match(await bar(h), /^\s*alpha\s/);
  assert.equal((await env.cli(['--session', 'alpha', 'pane', 'rename', '--pane', 'w1:p1', 'alpha-home'])).code, 0);

  await choose(h, 'beta-target');
  await waitFor(async () => /^\s*beta\s/.test(await bar(h)), { message: 'the bar says beta', observe: () => h.describe(), ...T });
  await waitFor(async () => (await beta.clients()) === 1 && (await alpha.clients()) === 0, { message: 'the client moved from alpha to beta', ...T });
  await waitFor(async () => (await beta.focused()) === 'w1:p1', { message: 'the chosen pane is focused in beta', observe: async () => `${JSON.stringify(await beta.call('pane.list'))}\n${h.describe()}`, ...T });
  await h.waitForNoText(/choose a pane/, T);
  const p1 = await h.waitForFrame('p1', T);
  await h.waitForFrame('p2', T);
  h.write('echo typed-in-beta\r');
  await h.waitForText(/^typed-in-beta$/, { region: p1.inner, ...T });
  const lines = await beta.read('w1:p1');
  assert.ok(lines.includes('$ echo typed-in-beta'), `each key arrives once: ${JSON.stringify(lines)}`);
  assert.ok(!(await alpha.read('w1:p1')).some((l) => l.includes('typed-in-beta')), 'alpha got none of it');

  // And back: the loop attaches a third time, still with one input handler.
  await choose(h, 'alpha-home');
  await waitFor(async () => /^\s*alpha\s/.test(await bar(h)), { message: 'the bar says alpha again', observe: () => h.describe(), ...T });
  await waitFor(async () => (await alpha.clients()) === 1 && (await beta.clients()) === 0, { message: 'the client moved back to alpha', ...T });
  const a1 = await h.waitForFrame('p1', T);
  h.write('echo back-in-alpha\r');
  await h.waitForText(/^back-in-alpha$/, { region: a1.inner, ...T });
  assert.ok((await alpha.read('w1:p1')).includes('$ echo back-in-alpha'), 'each key arrives once after two switches');
  assert.ok(!(await beta.read('w1:p1')).some((l) => l.includes('back-in-alpha')), 'beta got none of it');

  // Detaching ends the client process: nothing it added keeps it alive, and the terminal is given back.
  h.prefix('d');
  const exit = await h.waitForExit(10_000);
  assert.equal(exit.exitCode, 0);
  assert.match(h.output, /\[detached \(from session alpha\)\]/);
  assert.ok(h.output.trimEnd().endsWith('[detached (from session alpha)]'), 'nothing drawn after the terminal was restored');
  assert.equal(await alpha.clients(), 0);
  assert.equal(await beta.clients(), 0);
  for (const name of ['alpha', 'beta']) assert.equal((await env.cli(['kill-session', '-t', name], { timeoutMs: 20_000 })).code, 0);
  await waitFor(() => env.processes().length === 0, { message: 'nothing left running under this HOME', timeoutMs: 10_000 });
});

test('choose-tree: a session whose server has gone since the tree was read says so, and the client stays attached', async (t) => {
  const env = tempEnvFor(t);
  const alpha = session(env, 'alpha');
  await started(env, 'beta');
  assert.equal((await env.cli(['--session', 'beta', 'pane', 'rename', '--pane', 'w1:p1', 'beta-target'])).code, 0);
  const h = await startAttached(env, { cols: 120, rows: 32, args: ['new', '-s', 'alpha'], timeoutMs: 30_000 });
  h.prefix('s');
  await h.waitForText(/choose a pane/, T);
  h.write('/beta-target');
  await h.waitForText(/w1:p1\s+beta-target/, T);
  assert.equal((await env.cli(['kill-session', '-t', 'beta'], { timeoutMs: 20_000 })).code, 0);
  h.write(KEY.enter);
  await h.waitForText(/session beta does not answer: staying in session alpha/, T);
  assert.equal(await alpha.clients(), 1, 'still attached to alpha');
  // Esc clears the filter first (the lone ESC must stand alone to be a key), then q closes.
  h.write(KEY.escape);
  await h.waitForNoText(/filter: beta-target/, T);
  h.write('q');
  await h.waitForNoText(/choose a pane/, T);
  const p1 = await h.waitForFrame('p1', T);
  h.write('echo still-in-alpha\r');
  await h.waitForText(/^still-in-alpha$/, { region: p1.inner, ...T });
  assert.match(await bar(h), /^\s*alpha\s/);
  h.prefix('d');
  assert.equal((await h.waitForExit(10_000)).exitCode, 0);
  assert.equal((await env.cli(['kill-session', '-t', 'alpha'], { timeoutMs: 20_000 })).code, 0);
  await waitFor(() => env.processes().length === 0, { message: 'nothing left running under this HOME', timeoutMs: 10_000 });
});
