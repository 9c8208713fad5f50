// E2E: what the user types reaches the pane's program byte for byte (or as the program asked: cursor keys, paste, focus, mouse).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempEnvFor, type TempEnv } from '../support/temp-env.js';
import { KEY, PROMPT_RE, readPane, startAttached, type TermHarness } from '../support/term-harness.js';
import { waitFor } from '../support/wait-for.js';

/** A raw-mode program that prints, in hex, every chunk it reads; argv[2] lists terminal modes to turn on first. */
const KEYS_SCRIPT = `
const modes = process.argv[2] || '';
process.stdin.setRawMode(true);
let on = '';
if (modes.includes('paste')) on += '\\x1b[?2004h';
if (modes.includes('appcursor')) on += '\\x1b[?1h';
if (modes.includes('focus')) on += '\\x1b[?1004h';
if (modes.includes('mouse')) on += '\\x1b[?1000h\\x1b[?1006h';
process.stdout.write(on + 'READY-' + modes.length + '\\r\\n');
process.stdin.on('data', (d) => {
  process.stdout.write('GOT ' + [...d].map((b) => b.toString(16).padStart(2, '0')).join(' ') + '\\r\\n');
  if (d.length === 1 && d[0] === 0x1d) {
    // C-] ends it, leaving the modes it set.
    process.stdout.write('\\x1b[?2004l\\x1b[?1l\\x1b[?1004l\\x1b[?1000l\\x1b[?1006lBYE\\r\\n');
    process.exit(0);
  }
});
`;

/** Counts the bytes it reads until '#', then prints MARK <count>; '!' clears the screen and the count. */
const COUNT_SCRIPT = `
process.stdin.setRawMode(true);
process.stdout.write('COUNTING\\r\\n');
let n = 0;
process.stdin.on('data', (d) => {
  for (const b of d) {
    if (b === 0x23) { process.stdout.write('MARK ' + n + '\\r\\n'); n = 0; }
    else if (b === 0x21) { process.stdout.write('\\x1b[H\\x1b[2J'); n = 0; }
    else if (b === 0x1d) process.exit(0);
    else n++;
  }
});
`;

const hex = (s: string) => [...Buffer.from(s, 'utf8')].map((b) => b.toString(16).padStart(2, '0')).join(' ');

/** All bytes the program reported so far, as one hex stream (chunking does not matter). */
async function received(env: TempEnv): Promise<string> {
  const lines = await readPane(env, 'w1:p1', { source: 'scrollback', lines: 500 });
  const start = lines.map((l) => l.startsWith('READY-')).lastIndexOf(true);
  return lines
    .slice(start + 1)
    .filter((l) => l.startsWith('GOT '))
    .map((l) => l.slice(4))
    .join(' ');
}

async function runKeys(env: TempEnv, h: TermHarness, modes: string): Promise<void> {
  h.write(`${JSON.stringify(process.execPath)} keys.cjs ${modes}\r`);
  await waitFor(async () => (await readPane(env, 'w1:p1')).some((l) => l === `READY-${modes.length}`), { message: `keys program ready (${modes || 'no modes'})`, observe: () => h.describe() });
}

/** Ends the keys program (C-]) and waits for the shell prompt after its goodbye. */
async function endKeys(env: TempEnv, h: TermHarness): Promise<void> {
  h.write('\x1d');
  await waitFor(
    async () => {
      const l = (await readPane(env, 'w1:p1')).filter((x) => x !== '');
      return l[l.length - 2] === 'BYE' && PROMPT_RE.test(l[l.length - 1]);
    },
    { message: 'the keys program said BYE and the shell prompt is back', observe: () => h.describe() },
  );
}

/** Sends each [bytes, expected bytes] and waits until the program has read exactly the expected stream so far. */
async function expectBytes(env: TempEnv, h: TermHarness, cases: Array<[name: string, send: string, expect: string]>): Promise<void> {
  let want = '';
  for (const [name, send, expect] of cases) {
    want = want ? `${want} ${hex(expect)}` : hex(expect);
    h.write(send);
    const target = want;
    let got = '';
    await waitFor(async () => (got = await received(env)) === target, { message: `${name}: the program reads ${hex(expect)}`, observe: () => `wanted: ${target}\ngot:    ${got}` });
  }
}

async function setup(t: Parameters<typeof tempEnvFor>[0]) {
  const env = tempEnvFor(t);
  writeFileSync(join(env.home, 'keys.cjs'), KEYS_SCRIPT);
  const h = await startAttached(env, { cols: 100, rows: 30 });
  return { env, h };
}

test('typed keys reach the program unchanged: text, UTF-8, control keys, escape sequences, the prefix sent twice', async (t) => {
  const { env, h } = await setup(t);
  await runKeys(env, h, '');
  await expectBytes(env, h, [
    ['a letter', 'a', 'a'],
    ['UTF-8', 'é', 'é'],
    ['an emoji', '🦀', '🦀'],
    ['C-c (raw mode: a byte, not a signal)', KEY.ctrlC, '\x03'],
    ['C-a', '\x01', '\x01'],
    ['Tab', KEY.tab, '\t'],
    ['Enter', KEY.enter, '\r'],
    ['Backspace', KEY.backspace, '\x7f'],
    ['Up', KEY.up, '\x1b[A'],
    ['C-Right', '\x1b[1;5C', '\x1b[1;5C'],
    ['F1', '\x1bOP', '\x1bOP'],
    ['F5', '\x1b[15~', '\x1b[15~'],
    ['M-x', '\x1bx', '\x1bx'],
    ['a lone Escape', KEY.escape, '\x1b'],
    ['prefix prefix sends the prefix byte', KEY.prefix + KEY.prefix, '\x02'],
    ['a burst of text', 'hello world', 'hello world'],
  ]);
  await endKeys(env, h);
});

test('keys follow the modes the program set: application cursor keys, bracketed paste, focus, mouse', async (t) => {
  const { env, h } = await setup(t);
  const f = (await h.frames())[0];
  await runKeys(env, h, 'appcursor+paste+focus+mouse');
  const paste = '\x1b[200~one\rtwo \x1b[201~';
  await expectBytes(env, h, [
    ['Up in application cursor mode', KEY.up, '\x1bOA'],
    ['Left in application cursor mode', KEY.left, '\x1bOD'],
    ['a paste is bracketed for a program that asked', paste, paste],
    ['focus in', '\x1b[I', '\x1b[I'],
    ['focus out', '\x1b[O', '\x1b[O'],
    // Outer SGR mouse at 1-based (left+5, top+3) is pane cell (5, 3), 1-based.
    ['mouse press, pane-relative', `\x1b[<0;${f.inner.left + 5};${f.inner.top + 3}M`, '\x1b[<0;5;3M'],
    ['mouse release', `\x1b[<0;${f.inner.left + 5};${f.inner.top + 3}m`, '\x1b[<0;5;3m'],
  ]);
  await endKeys(env, h);

  // A program that did not ask for bracketed paste gets the bare text.
  await runKeys(env, h, 'x');
  await expectBytes(env, h, [
    ['a paste without bracketed paste mode', paste, 'one\rtwo '],
    ['Up in normal cursor mode', KEY.up, '\x1b[A'],
  ]);
  await endKeys(env, h);
});

test('C-c interrupts the foreground program in a cooked-mode pane', async (t) => {
  const env = tempEnvFor(t);
  const h = await startAttached(env, { cols: 80, rows: 24 });
  const f = (await h.frames())[0];
  h.write('sleep 30; echo NOT-INTERRUPTED\r');
  await waitFor(async () => (await env.call<{ panes: Array<{ foreground?: string }> }>('pane.list')).panes[0].foreground === 'sleep', { message: 'sleep runs in the foreground' });
  h.write(KEY.ctrlC);
  await h.waitForText(/^\$ ?$/, { region: { ...f.inner, top: f.inner.top + 1 }, message: 'a new prompt after C-c' });
  h.write('echo status=$?\r');
  await h.waitForText('status=130', { region: f.inner, message: 'sleep died of SIGINT' });
  assert.equal((await h.find('NOT-INTERRUPTED', f.inner)).filter((m) => m.x === f.inner.left).length, 0, 'the rest of the command line did not run');
});

/** Starts the byte counter; send() types input then a marker and resolves with how many bytes the program read before the marker. */
async function counter(t: Parameters<typeof tempEnvFor>[0]) {
  const { env, h } = await setup(t);
  writeFileSync(join(env.home, 'count.cjs'), COUNT_SCRIPT);
  h.write(`${JSON.stringify(process.execPath)} count.cjs\r`);
  await waitFor(async () => (await readPane(env, 'w1:p1')).includes('COUNTING'), { message: 'counter ready' });
  const send = async (what: string, data: string): Promise<number> => {
    h.write(data);
    // The marker travels the same path after the big input, so once it arrives the big input was handled (or lost).
    h.write('#');
    const line = await waitFor(async () => (await readPane(env, 'w1:p1')).find((l) => l.startsWith('MARK ')), { timeoutMs: 15_000, message: `${what}: the marker after it arrives` });
    await env.call('pane.send_text', { pane_id: 'w1:p1', text: '!' }); // clear the screen and the count
    await waitFor(async () => !(await readPane(env, 'w1:p1')).some((l) => l.startsWith('MARK ')), { message: 'counter reset' });
    return Number(line.slice(5));
  };
  return { h, send };
}

test('big input arrives whole: a 1.2 MB typed burst and a 3 MB bracketed paste', async (t) => {
  const { send } = await counter(t);
  assert.equal(await send('typed burst', 'a'.repeat(1_200_000)), 1_200_000, '1.2 MB typed without bracketed paste');
  assert.equal(await send('paste', `\x1b[200~${'b'.repeat(3_000_000)}\x1b[201~`), 3_000_000, '3 MB bracketed paste');
});

test('a paste over the socket line limit is delivered or refused visibly, never dropped in silence', async (t) => {
  const { h, send } = await counter(t);
  const got = await send('paste', `\x1b[200~${'b'.repeat(4_500_000)}\x1b[201~`);
  if (got === 4_500_000) return;
  const bar = (await h.screenText()).at(-1) ?? '';
  assert.match(bar, /paste|too (big|long|large)/i, `the program read ${got} of 4500000 pasted bytes and the bar says nothing: ${bar}`);
});
