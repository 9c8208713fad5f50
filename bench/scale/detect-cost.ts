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
import { evaluate } from '../../src/detect/engine.js';
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

/**
 * When the fake agent's screen first shows a state after the key that starts it (ms): the working stretch as
 * fake-agent.mjs plays it (from its first frame) and the turn's end. Badge latency is held to the moment the screen
 * shows the state (as test/detect/stream-replay.test.ts holds the recordings), not to the key: an agent that takes
 * 500 ms to draw its prompt back is not the badge's lag.
 */
export async function drawnOffsets(agent: string, cols = 99, rows = 24): Promise<{ working: number; rest: number }> {
  const url = new URL(`../../test/fixtures/streams/${agent}.jsonl.gz`, import.meta.url);
  const [, ...recs] = gunzipSync(readFileSync(fileURLToPath(url))).toString('utf8').trim().split('\n').map((l) => JSON.parse(l)) as Array<{ t: number; o?: string; mark?: { step: string; transition: string } }>;
  const mark = (step: string, tr: string) => recs.find((r) => r.mark?.step === step && r.mark.transition === tr)?.t ?? 0;
  const from = mark('longtool', 'approve→working'), to = mark('longtool', 'tool answer→rest');
  const set = ruleSetFor(loadRules({ userDir: '/nonexistent/castellan-bench' }), agent);
  const screen = new Screen({ cols, rows, scrollback: 1000 });
  const out = { working: NaN, rest: NaN };
  let lead: number | undefined;
  try {
    for (const r of recs) {
      if (r.o === undefined) continue;
      await new Promise<void>((res) => screen.write(r.o!, res));
      if (r.t < from) continue;
      const st = evaluate(set, screen.snapshot())?.state;
      if (r.t < to) {
        lead ??= r.t;
        if (Number.isNaN(out.working) && st === 'working') out.working = r.t - lead;
      } else if (st === 'idle' || st === 'done') {
        out.rest = r.t - to;
        break;
      }
    }
  } finally {
    screen.dispose();
  }
  return out;
}
