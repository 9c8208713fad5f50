// A Node preload that records every module a process loads (ESM loader URLs and compiled CommonJS files) into $MODLOG.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const HOOKS = `import { appendFileSync } from 'node:fs';
export async function load(url, ctx, next) { appendFileSync(process.env.MODLOG, url + '\\n'); return next(url, ctx); }
`;
const RECORDER = `import { register, createRequire } from 'node:module';
import { appendFileSync } from 'node:fs';
register(new URL('./hooks.mjs', import.meta.url));
const M = createRequire(import.meta.url)('node:module');
const compile = M.prototype._compile;
M.prototype._compile = function (c, f) { appendFileSync(process.env.MODLOG, 'file://' + f + '\\n'); return compile.call(this, c, f); };
`;

/** Writes the recorder into `dir`; returns the file URL to pass to `node --import`. */
export function writeModuleRecorder(dir: string): string {
  writeFileSync(join(dir, 'hooks.mjs'), HOOKS);
  writeFileSync(join(dir, 'recorder.mjs'), RECORDER);
  return pathToFileURL(join(dir, 'recorder.mjs')).href;
}
