// src/restore/writer.ts: a structural change (a new pane, a split) is written once output pauses, so a pane that floods
// is not re-read and packed in the flood's time; never later than structuralMaxMs after the change, and at once when
// nothing prints. The gap (300 ms) is far above the 10 ms between chunks here, so a stalled timer under load does not
// look like a pause.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SnapshotWriter } from '../../src/restore/writer.js';
import type { Capture } from '../../src/restore/capture.js';
import { waitFor } from '../support/wait-for.js';

const GAP = 300;
const MAX = 2000;

async function scenario(outputMs: number): Promise<{ takes: number[]; outputEnded: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'cst-writer-'));
  const t0 = Date.now();
  const takes: number[] = [];
  const capture = { take: async () => (takes.push(Date.now() - t0), { version: 1 }) } as unknown as Capture;
  const w = new SnapshotWriter({ capture, paths: { stateDir: dir, session: 'default' }, log: () => {}, debounceMs: 20, contentQuietMs: 60_000, contentMs: 60_000, periodicMs: 60_000, floodGapMs: GAP, structuralMaxMs: MAX });
  try {
    w.structural();
    // Output every 10 ms, as parsed chunks of a flood arrive.
    while (Date.now() - t0 < outputMs) {
      w.content();
      await new Promise((r) => setTimeout(r, 10));
    }
    const outputEnded = Date.now() - t0;
    await waitFor(() => takes.length > 0, { timeoutMs: 5000, intervalMs: 10, message: 'the structural write was taken' });
    await w.idle();
    return { takes, outputEnded };
  } finally {
    w.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

test('no output: the structural write comes after its debounce, not a flood gap later', async () => {
  const { takes } = await scenario(0);
  assert.equal(takes.length, 1);
  assert.ok(takes[0] < MAX / 2, `written at ${takes[0]} ms`);
});

test('output for a while: the structural write waits for the pause, not before the output ends', async () => {
  const { takes, outputEnded } = await scenario(1000);
  assert.equal(takes.length, 1);
  assert.ok(takes[0] >= outputEnded - 15, `written at ${takes[0]} ms, output ended at ${outputEnded} ms`);
});

test('output that never pauses: the structural write is taken at most structuralMaxMs after the change', async () => {
  const { takes, outputEnded } = await scenario(MAX * 2);
  assert.equal(takes.length, 1);
  assert.ok(takes[0] >= MAX - 15 && takes[0] < outputEnded, `written at ${takes[0]} ms (cap ${MAX}), output ran to ${outputEnded} ms`);
});
