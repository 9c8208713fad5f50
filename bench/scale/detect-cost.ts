// Detection and identification cost per pane, in this process with castellan's own code: what the server pays for
// one agent pane while it works, and for identifying a pane's program from the process tree.
//
// Detection: each agent's recorded working stretch (fake-agent.mjs plays the same) is written into a real Screen of
// the herd's pane size; after each chunk, the snapshot and the detector's update are timed (CPU of this thread), as
// the server's detection loop runs them (at most every 50 ms per pane). Per pane and second = runs a second at the
// recording's cadence (capped by the 50 ms throttle) x the cost of a run.
// Identification: the foreground-group check every run makes (one small read), and the process-tree read made when
// the foreground changes (or, for a pane at a shell, at most once a second while its screen changes).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { createDetector } from '../../src/detect/detector.js';
import { loadRules, ruleSetFor } from '../../src/detect/rules.js';
import { foregroundPgid, readPaneProcesses } from '../../src/platform/proc/index.js';
import { Screen } from '../../src/server/screen.js';
import { median } from '../lib/util.js';

const THROTTLE_MS = 50;
/** CPU ms of this process (getrusage: exact, unlike the scheduler's per-thread figure, which moves only at a switch). */
const threadMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

export interface DetectCost {
  agent: string;
  /** Median µs of one detection run (snapshot + rules). */
  runUs: number;
  /** Detection runs a second at the recording's cadence, after the 50 ms throttle. */
  runsPerSec: number;
  /** % of a core per working pane. */
  pctPerPane: number;
}

function stretch(agent: string): Array<{ t: number; o: string }> {
  const url = new URL(`../../test/fixtures/streams/${agent}.jsonl.gz`, import.meta.url);
  const [, ...recs] = gunzipSync(readFileSync(fileURLToPath(url))).toString('utf8').trim().split('\n').map((l) => JSON.parse(l));
  const mark = (step: string, tr: string) => recs.find((r: { mark?: { step: string; transition: string } }) => r.mark?.step === step && r.mark.transition === tr)?.t as number | undefined;
  const from = mark('longtool', 'approve→working') ?? 0, to = mark('longtool', 'tool answer→rest') ?? Infinity;
  // Everything up to the stretch too (the screen as the agent left it), but only the stretch is timed.
  return recs.filter((r: { o?: string; t: number }) => r.o !== undefined && r.t < to).map((r: { o: string; t: number }) => ({ t: r.t - from, o: r.o }));
}

export async function detectionCost(agent: string, cols = 99, rows = 24): Promise<DetectCost> {
  const recs = stretch(agent);
  const rules = loadRules({ userDir: '/nonexistent/castellan-bench' });
  const det = createDetector(ruleSetFor(rules, agent), { agent });
  const screen = new Screen({ cols, rows, scrollback: 1000 });
  const costs: number[] = [];
  let lastRun = -Infinity, runs = 0;
  try {
    for (const r of recs) {
      await new Promise<void>((res) => screen.write(r.o, res));
      if (r.t < 0) continue;
      const c0 = threadMs();
      det.update(screen.snapshot(), Date.now(), { input: false });
      costs.push((threadMs() - c0) * 1000);
      if (r.t - lastRun >= THROTTLE_MS) {
        runs++;
        lastRun = r.t;
      }
    }
  } finally {
    screen.dispose();
  }
  const span = Math.max(1, recs[recs.length - 1].t) / 1000;
  const runUs = median(costs);
  const runsPerSec = runs / span;
  return { agent, runUs, runsPerSec, pctPerPane: (runUs * runsPerSec) / 1e4 };
}

/** Median µs of the foreground check and of a pane's process-tree read, for the pane rooted at `pid`. */
export function identifyCost(pid: number, n = 20): { fgUs: number; treeUs: number; treeProcesses: number } {
  const fg: number[] = [], tree: number[] = [];
  let count = 0;
  for (let i = 0; i < n; i++) {
    let t = performance.now();
    foregroundPgid(pid);
    fg.push((performance.now() - t) * 1000);
    t = performance.now();
    count = readPaneProcesses(pid).processes.length;
    tree.push((performance.now() - t) * 1000);
  }
  return { fgUs: median(fg), treeUs: median(tree), treeProcesses: count };
}
