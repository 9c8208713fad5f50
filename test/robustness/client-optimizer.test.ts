// The attached client turns V8's optimizing compiler off for itself (src/client/young-generation.ts), silently, unless told not to.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nodeChildJson } from '../support/node-child.js';

const dist = (p: string) => JSON.stringify(new URL(`../../dist/${p}`, import.meta.url).href);
/** %GetOptimizationStatus bits (V8 runtime-test.cc): 16 optimized, 64 TurboFan code. */
const TURBOFANNED = 64;

async function hotFunctionStatus(env: Record<string, string>): Promise<{ on: boolean; status: number }> {
  // A function V8 is told to optimize at its next call: without TurboFan it stays in Ignition/Sparkplug.
  const code = `const y = await import(${dist('client/young-generation.js')}); const on = y.skipOptimizingCompiler();
    function hot(n) { let s = 0; for (let i = 0; i < n; i++) s += i % 7; return s; }
    %PrepareFunctionForOptimization(hot); hot(1000); hot(1000); %OptimizeFunctionOnNextCall(hot); hot(1000);
    process.stdout.write(JSON.stringify({ on, status: %GetOptimizationStatus(hot) }));`;
  return nodeChildJson<{ on: boolean; status: number }>(code, env, ['--allow-natives-syntax']);
}

test('the client runs without TurboFan; CASTELLAN_CLIENT_OPTIMIZER=turbofan keeps it', async () => {
  const off = await hotFunctionStatus({});
  assert.equal(off.on, true);
  assert.equal(off.status & TURBOFANNED, 0, `status ${off.status}`);
  // The control: the same function is optimized when the client keeps TurboFan (else this test proves nothing).
  const kept = await hotFunctionStatus({ CASTELLAN_CLIENT_OPTIMIZER: 'turbofan' });
  assert.equal(kept.on, false);
  assert.notEqual(kept.status & TURBOFANNED, 0, `status ${kept.status}`);
});

test('an unknown V8 is left alone (its flags may differ)', async () => {
  const { skipOptimizingCompiler } = await import('../../src/client/young-generation.js');
  assert.equal(skipOptimizingCompiler({}, '99.1.0'), false);
});
