// Loads the client app (Ink, React, yoga) with the global fetch hidden, so yoga's wasm loader cannot pull in Node's HTTP stack.
//
// yoga-layout's Emscripten loader (Ink's layout engine) gets its inline wasm (a data: URL) with fetch() whenever fetch
// is a function, before decoding the same base64 itself. On Node that first fetch() loads undici and with it http,
// https/tls, http2, zlib, crypto and assert (~30 of Node's own modules), which the client then keeps for its life.
// Without fetch, yoga decodes the string directly (its own fallback). Measured (bundled, 202x53, one idle pane,
// 6 interleaved runs each, load 0.5-0.8): attached client RSS median 63.4 -> 58.7 MB (anonymous 20.8 -> 17.7, from
// files 42.6 -> 41.0).
// The loader looks at fetch once, while the module graph evaluates (yoga instantiates in a top-level await), so
// fetch is back as soon as the import settles; nothing else in the client uses fetch meanwhile.
import type * as App from './app.js';

export async function importApp(): Promise<typeof App> {
  const g = globalThis as { fetch?: unknown };
  const own = Object.getOwnPropertyDescriptor(g, 'fetch');
  if (!own?.configurable) return import('./app.js');
  delete g.fetch;
  try {
    return await import('./app.js');
  } finally {
    Object.defineProperty(g, 'fetch', own);
  }
}
