// Which castellan build a process is, and where a host of that build listens (src/server/host/index.ts).
//
// A session is started inside a running server only when both are the same build: the same version, the same install
// (package root) and the same compiled files (their sizes and times), under the same Node. A rebuilt or upgraded
// castellan starts a host of its own beside the old one, whose sessions go on as they were.
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { VERSION } from '../../version.js';

/** The package root: this file is <root>/{src,dist}/server/host/build.{ts,js} (the CLI bundle keeps each module's own URL). */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** Files a build rewrites (tsc and the bundlers), and the source when running from it. */
const STAMPED = ['dist/cli/main.cjs', 'dist/server/main.js', 'dist/server/session.js', 'src/server/main.ts', 'src/server/session.ts'];

let id: string | undefined;

/** 12 hex digits naming this build. */
export function buildId(): string {
  if (id) return id;
  const stamp = STAMPED.map((f) => {
    try {
      const st = statSync(join(ROOT, f));
      return `${f}:${st.size}:${st.mtimeMs}`;
    } catch {
      return '';
    }
  }).join('|');
  id = createHash('sha256').update(`${VERSION}\0${ROOT}\0${process.version}\0${stamp}`).digest('hex').slice(0, 12);
  return id;
}

/** The host's socket: in the state directory (0700, the user's own), one per build. Not in the socket directory: `ls` lists every *.sock there as a session. */
export function hostSocketPath(stateDir: string): string {
  return join(stateDir, `host-${buildId()}.sock`);
}

/** CASTELLAN_HOST=0: every session gets a server process of its own, as before issue 34 (read by the starter and by the server). */
export function hostingOff(env: NodeJS.ProcessEnv): boolean {
  return env.CASTELLAN_HOST === '0';
}
