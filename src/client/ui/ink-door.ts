// The one door to Ink (React + yoga), loaded the first time a pane under 2x2 needs it, with the global fetch hidden while it loads.
//
// The chrome and every overlay are composed by hand (chrome-lines.ts), so an attached client that never shows a pane
// under 2x2 need not parse, link and keep Ink, React, the reconciler and yoga's wasm (a 340 KB chunk) at all. Measured
// when the overlays still went through Ink (bundled, 202x53, one idle bash pane, interleaved with the build that loaded
// Ink at start; bench/mem-probe.ts and bench/overlay-probe.ts): attached client RSS median 54.3 -> 48.1 MB (anonymous
// 13.8 -> 11.1, from files 40.5 -> 37.0; 8 runs, load 6.1-3.5), spawn to first frame 171 -> 132 ms, first help 121 ->
// 142 ms, second help 94 -> 95 ms (9 runs, load 3.5-1.7; at load 6-7 the first help was 221 -> 334 ms). Not preloaded
// when idle: the import alone is the whole 6 MB, and the first help's render added ~15 MB more (63 MB after it closed).
// With the overlays drawn by hand (bench/overlay-probe.ts, 8 runs, load 0.7-0.6): first help 147 -> 15 ms, second 89 ->
// 4.5 ms, a key typed in its filter 41 -> 2.2 ms, client RSS after the help 62.9 -> 50.3 MB; at attach 48.0 both.
//
// yoga-layout's Emscripten loader (Ink's layout engine) gets its inline wasm (a data: URL) with fetch() whenever fetch
// is a function, before decoding the same base64 itself. On Node that first fetch() loads undici and with it http,
// https/tls, http2, zlib, crypto and assert (~30 of Node's own modules), which the client then keeps for its life.
// Without fetch, yoga decodes the string directly (its own fallback). Measured when the app loaded Ink at start
// (bundled, 202x53, one idle pane, 6 interleaved runs each, load 0.5-0.8): attached client RSS median 63.4 -> 58.7 MB
// (anonymous 20.8 -> 17.7, from files 42.6 -> 41.0). The loader looks at fetch once, while the module graph evaluates
// (yoga instantiates in a top-level await), so fetch is back as soon as the import settles; nothing in the client
// uses fetch meanwhile.
import type { ChromeProps } from './chrome-props.js';

type InkLines = (p: ChromeProps) => string[];
/** Called once Ink is in, or with the error that kept it out. */
export type InkWaiter = (error?: Error) => void;

let lines: InkLines | undefined;
let failed: Error | undefined;
let loading: Promise<void> | undefined;
const waiters = new Set<InkWaiter>();

/** Ink's chrome if it is loaded; otherwise undefined, and `ready` is called (once) when it is in or could not be loaded. */
export function inkNow(ready: InkWaiter): InkLines | undefined {
  if (lines || failed) return lines;
  waiters.add(ready);
  void loadInk();
  return undefined;
}

/** Loads Ink once (later calls share the first load); never rejects: a failure goes to the waiters and inkFailed(). */
export function loadInk(): Promise<void> {
  loading ??= importGuarded().then(
    (m) => {
      lines = m.inkLines;
      wake();
    },
    (e: unknown) => {
      failed = e instanceof Error ? e : new Error(String(e));
      wake(failed);
    },
  );
  return loading;
}

/** A waiter that left (a client app that was disposed) is not called: it would draw over its successor's screen. */
export const forgetInk = (ready: InkWaiter): void => void waiters.delete(ready);

export const inkLoaded = (): boolean => lines !== undefined;
export const inkFailed = (): Error | undefined => failed;

function wake(error?: Error): void {
  const all = [...waiters];
  waiters.clear();
  for (const w of all) w(error);
}

async function importGuarded(): Promise<typeof import('./ink-chrome.js')> {
  const g = globalThis as { fetch?: unknown };
  const own = Object.getOwnPropertyDescriptor(g, 'fetch');
  if (!own?.configurable) return import('./ink-chrome.js');
  delete g.fetch;
  try {
    return await import('./ink-chrome.js');
  } finally {
    Object.defineProperty(g, 'fetch', own);
  }
}
