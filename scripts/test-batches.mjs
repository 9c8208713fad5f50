// Which test files may share one test process, and the batch files that run them: a process per file costs ~1 s of CPU (node, the test runner, tsx, the module graph) before its first test.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * What keeps a file in its own process: starting anything (below), hooks at the top level (they would apply to
 * every file of the batch), changes to process-wide state (env, cwd, mocks), figures about the process itself
 * (memory, CPU, clocks, which a neighbour's garbage would skew), and an explicit `// test: own process`.
 */
const OWN_PROCESS = [
  /^(before|after|beforeEach|afterEach)\(/m,
  /process\.env(\.\w+|\[[^\]]+\])\s*=[^=]|delete process\.env/,
  /process\.chdir|process\.exit|process\.on\(|mock\./,
  /memoryUsage|cpuUsage|performance\.now|hrtime|VmRSS|live-memory|heapUsed|getHeap|--expose-gc|global\.gc/,
  /CASTELLAN_LAB/,
  /\/\/ test: own process/,
  // Anything that starts processes, servers or ptys. Tried: batched too, those files saved 30 % of their CPU, but
  // under a load of 15 on 2 cores they failed 16 tests to 5 alone (deadlines on forks and round trips, a git status
  // read empty), so only pure in-process files share a process.
  /temp-env|term-harness|in-process|child_process|node-child|execa|node-pty|support\.js|-support|worker_threads|node:net/,
];

export function sharesProcess(source) {
  return !OWN_PROCESS.some((re) => re.test(source));
}

/**
 * Splits `files` into those run alone and batch files of at most `maxSeconds` of recorded test time each (a batch
 * runs its files one after the other, so a long batch would be the tail). Returns the list to hand to `node --test`
 * and a cleanup for the temp dir the batch files live in. `load` maps a file (whose source decides whether it may share)
 * to the module the batch imports (run-tests.mjs: its compiled JS under dist-test/).
 */
export function batchFiles(root, files, weight, { maxSeconds = 20, minBatch = 2, load = (f) => f } = {}) {
  const alone = [];
  const shared = [];
  for (const f of files) (sharesProcess(readFileSync(join(root, f), 'utf8')) ? shared : alone).push(f);
  const batches = [];
  let cur = [];
  let secs = 0;
  for (const f of shared) {
    const w = Math.max(weight(f), 0.3);
    if (cur.length && secs + w > maxSeconds) {
      batches.push(cur);
      cur = [];
      secs = 0;
    }
    cur.push(f);
    secs += w;
  }
  if (cur.length) batches.push(cur);
  const singles = batches.filter((b) => b.length < minBatch).flat();
  const real = batches.filter((b) => b.length >= minBatch);
  if (real.length === 0) return { alone: files, entries: [], cleanup: () => {} };
  const dir = mkdtempSync(join(tmpdir(), 'cst-tests-'));
  const entries = real.map((b, i) => {
    const p = join(dir, `batch-${i + 1}.test.mjs`);
    writeFileSync(p, `// ${b.join(' ')}\n${b.map((f) => `await import(${JSON.stringify(pathToFileURL(join(root, load(f))).href)});`).join('\n')}\n`);
    return { path: p, files: b, weight: b.reduce((s, f) => s + weight(f), 0) };
  });
  return { alone: [...alone, ...singles], entries, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
