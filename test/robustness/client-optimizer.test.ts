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

/** A hot wasm function (yoga's layout is wasm): does it tier up from Liftoff to TurboFan after the client's flags? */
async function hotWasm(env: Record<string, string>): Promise<{ liftoff: boolean; turbofan: boolean }> {
  // (func (export "f") (param i32) (result i32) local.get 0 i32.const 1 i32.add)
  const code = `const y = await import(${dist('client/young-generation.js')}); y.skipOptimizingCompiler();
    const bytes = new Uint8Array([0,97,115,109,1,0,0,0,1,6,1,96,1,127,1,127,3,2,1,0,7,5,1,1,102,0,0,10,9,1,7,0,32,0,65,1,106,11]);
    const f = (await WebAssembly.instantiate(bytes)).instance.exports.f;
    let s = 0;
    for (let round = 0; round < 20 && !%IsTurboFanFunction(f); round++) { for (let i = 0; i < 1e6; i++) s += f(i); await new Promise((r) => setTimeout(r, 20)); }
    process.stdout.write(JSON.stringify({ liftoff: %IsLiftoffFunction(f), turbofan: %IsTurboFanFunction(f) }));`;
  return nodeChildJson<{ liftoff: boolean; turbofan: boolean }>(code, env, ['--allow-natives-syntax']);
}

test("yoga's wasm stays on Liftoff in the client (no tier-up to TurboFan), with nothing on stderr", { skip: !/^11\./.test(process.versions.v8) && 'set on V8 11 (Node 20) only' }, async () => {
  assert.deepEqual(await hotWasm({}), { liftoff: true, turbofan: false });
  // The control: with TurboFan kept, the same hot function tiers up.
  assert.deepEqual(await hotWasm({ CASTELLAN_CLIENT_OPTIMIZER: 'turbofan' }), { liftoff: false, turbofan: true });
});
