// Runs castellan's real pi extension (share/integrations/pi/castellan.ts) as pi would load it: a copy with its command written in, a fake `pi` calling its handlers.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// Not from temp-env.ts: pi-driver.ts runs this in a pane, and should load no more than the extension needs.
const REPO = fileURLToPath(new URL('../..', import.meta.url));

export type Handler = (event: unknown, ctx: unknown) => unknown;
const SOURCE = readFileSync(join(REPO, 'share/integrations/pi/castellan.ts'), 'utf8');
export const PI_DRIVER = join(REPO, 'test/support/pi-driver.ts');

/** Writes a copy of the extension with INSTALLED_COMMAND set (as `castellan integrations install pi` writes it); returns its path. */
export function writeExtension(dir: string, name: string, argv: string[] | null): string {
  const file = join(dir, `${name}.ts`);
  writeFileSync(file, SOURCE.split('\n').map((l) => (l.endsWith('// @castellan-command') ? `const INSTALLED_COMMAND: string[] | null = ${JSON.stringify(argv)}; // @castellan-command` : l)).join('\n'));
  return file;
}

/**
 * Imports a .ts file as ESM. Under tsx (pi-driver.ts in a pane) it imports as it is; the test processes run compiled
 * JS (scripts/compile-tests.mjs) with no .ts loader, so there esbuild compiles it to a .mjs beside it first, keeping
 * the .ts's import.meta.url (the extension finds bin/castellan.js from it).
 */
export async function importTs(file: string): Promise<unknown> {
  try {
    return await import(pathToFileURL(file).href);
  } catch (e) {
    if ((e as { code?: string }).code !== 'ERR_UNKNOWN_FILE_EXTENSION') throw e;
  }
  const { transform } = await import('esbuild');
  const r = await transform(readFileSync(file, 'utf8'), { loader: 'ts', format: 'esm', target: 'node20', sourcemap: 'inline', sourcefile: file, define: { 'import.meta.url': JSON.stringify(pathToFileURL(file).href) } });
  const js = file.replace(/\.ts$/, '.mjs');
  writeFileSync(js, r.code);
  return import(pathToFileURL(js).href);
}

/** Loads an extension file into this process (it reads CASTELLAN_* from process.env as it registers) and returns its handlers. */
export async function loadHandlers(file: string): Promise<Map<string, Handler>> {
  const mod = (await importTs(file)) as { default: (pi: { on(e: string, h: Handler): void }) => void };
  const handlers = new Map<string, Handler>();
  mod.default({ on: (e, h) => handlers.set(e, h) });
  return handlers;
}

/**
 * A stand-in for `castellan hook pi EVENT` that only writes down that it ran: one line per call to `log`,
 * "EVENT PAYLOAD_JSON". It answers nothing and exits 0 (castellan's "allow" for a tool call).
 */
export function recorderArgv(log: string): string[] {
  return ['/bin/sh', '-c', `{ printf '%s ' "$3"; cat; } >> '${log}'`, 'sh'];
}

/** The events the recorder saw, in order. */
export function recorded(log: string): Array<{ event: string; payload: Record<string, unknown> }> {
  let text = '';
  try {
    text = readFileSync(log, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => ({ event: l.slice(0, l.indexOf(' ')), payload: JSON.parse(l.slice(l.indexOf(' ') + 1)) as Record<string, unknown> }));
}

/** One step of a driver script: fire an event (awaiting its handler's answer with `await`). */
export interface DriverStep {
  event: string;
  payload?: Record<string, unknown>;
  await?: boolean;
}
