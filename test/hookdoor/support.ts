// For the door tests: a stand-in node that counts its starts (a call the door served starts none).
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A stand-in for the node binary in a door line: notes each start in `marks` (one line per call), then runs node.
 * A call the door served never starts it.
 */
export function markingNode(dir: string): { path: string; marks: () => number; reset(): void } {
  const path = join(dir, 'node-marking.sh');
  const marks = join(dir, 'node-marks');
  writeFileSync(path, `#!/bin/sh\necho x >> '${marks}'\nexec '${process.execPath}' "$@"\n`);
  chmodSync(path, 0o755);
  return {
    path,
    marks: () => (existsSync(marks) ? readFileSync(marks, 'utf8').split('\n').filter(Boolean).length : 0),
    reset: () => rmSync(marks, { force: true }),
  };
}
