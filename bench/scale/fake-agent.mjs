#!/usr/bin/env node
// A faithful fake coding agent for the scale bench and the soak: replays a real agent's recorded pty stream
// (test/fixtures/streams/<agent>.jsonl.gz, recorded from the agent lab by scripts/badge-record.ts) with its own timing.
//
//   node bench/scale/fake-agent.mjs <agent> [--fast] [--work]
//
// It names itself after the agent (process.title: comm and argv become "claude", so castellan identifies it as it
// identifies the real one), draws the agent's start screen, then waits at its prompt as the real agent does (the
// recordings show no output at an idle prompt). Keys drive it as they drive the real agent's state:
//   Enter or 'w'  working: loops the recording's long tool call (spinner + title redrawn at the agent's real cadence)
//   'b'           blocked: draws the recording's permission dialog once, then waits
//   'r'           rest: replays the end of a turn (the answer is printed, the prompt comes back), then idles
//   'q'           quits (exit 0)
// --work starts working at once; --fast squeezes the start screen's pauses (a bench starting 32 of them).
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

const agent = process.argv[2] ?? 'claude';
const fast = process.argv.includes('--fast');
const url = new URL(`../../test/fixtures/streams/${agent}.jsonl.gz`, import.meta.url);
const [, ...recs] = gunzipSync(readFileSync(url)).toString('utf8').trim().split('\n').map((l) => JSON.parse(l));
process.title = agent;

/** Output records from time a to time b (exclusive), with their offsets from a. */
const slice = (a, b) => recs.filter((r) => r.o !== undefined && r.t >= a && r.t < b).map((r) => ({ dt: r.t - a, o: r.o }));
const markAt = (step, transition) => recs.find((r) => r.mark && r.mark.step === step && r.mark.transition === transition)?.t;
const firstInput = recs.find((r) => r.input)?.t ?? 0;
const end = recs[recs.length - 1].t + 1;
const nextInputAfter = (t) => recs.find((r) => r.input && r.t > t)?.t ?? end;

// The long tool call's working stretch (after the approval, until its answer): the spinner at the agent's cadence.
const workFrom = markAt('longtool', 'approve→working') ?? markAt('answer', 'prompt→working');
const workTo = markAt('longtool', 'tool answer→rest') ?? markAt('answer', 'answer→rest');
const SEGMENTS = {
  start: slice(0, firstInput),
  work: slice(workFrom, workTo),
  // From the prompt to the approval: a little work, then the dialog, drawn as the agent draws it.
  block: slice(markAt('longtool', 'prompt→working') ?? workFrom, nextInputAfter(markAt('longtool', 'dialog drawn→blocked') ?? workFrom)),
  rest: slice(workTo, nextInputAfter(workTo)),
};
// The stretch starts at its first frame: a key that starts work is answered at once, as a prompt's Enter is (the
// approval the stretch follows in the recording drew nothing for a few hundred ms).
const lead = SEGMENTS.work[0]?.dt ?? 0;
SEGMENTS.work = SEGMENTS.work.map((r) => ({ dt: r.dt - lead, o: r.o }));
const workLen = Math.max(250, workTo - workFrom - lead);

let timer;
let gen = 0;
const write = (s) => {
  try {
    process.stdout.write(s);
  } catch {
    process.exit(0);
  }
};

/** Plays a segment from its start; loops it when `loop` (the spinner goes on until the state changes). */
function play(seg, { loop = false, squeeze = false } = {}) {
  const my = ++gen;
  clearTimeout(timer);
  let i = 0;
  let base = Date.now();
  const step = () => {
    if (my !== gen) return;
    if (i >= seg.length) {
      if (!loop) return;
      i = 0;
      base += workLen;
    }
    const due = base + (squeeze ? Math.min(seg[i].dt, i * 5) : seg[i].dt);
    const wait = due - Date.now();
    if (wait > 0) {
      timer = setTimeout(step, wait);
      return;
    }
    write(seg[i++].o);
    step();
  };
  step();
}

if (process.stdin.isTTY) process.stdin.setRawMode(true);
process.stdin.on('data', (d) => {
  for (const ch of d.toString('latin1')) {
    if (ch === '\r' || ch === 'w') play(SEGMENTS.work, { loop: true });
    else if (ch === 'b') play(SEGMENTS.block);
    else if (ch === 'r') play(SEGMENTS.rest);
    else if (ch === 'q' || ch === '\x03') process.exit(0);
  }
});
process.stdin.on('end', () => process.exit(0));
process.on('SIGHUP', () => process.exit(0));
play(SEGMENTS.start, { squeeze: fast });
if (process.argv.includes('--work')) setTimeout(() => play(SEGMENTS.work, { loop: true }), fast ? 300 : firstInput);
