// Fuzz cases for the socket: bad params derived from each method's own zod schema, and bad lines of every other kind.
//
// Every case is checked against the server's own gate (shape guard, envelope schema, the method's
// params schema) before it is sent: a line that would reach a handler is never sent, so the fuzzer
// cannot split panes, stop the server or type into a shell. `expect` is what the server must answer.
import type { z } from 'zod';
import { jsonShapeProblem, leadingId } from '../../src/api/json-guard.js';
import { METHODS, METHOD_TABLE } from '../../src/api/methods/index.js';
import { MAX_LINE_BYTES, requestSchema } from '../../src/api/protocol.js';
import { prng as rng } from '../support/prng.js';

export interface Expect {
  /** The reply's id (null for a reply the server cannot tie to a request). */
  id: string | number | null;
  code: string;
}

export interface FuzzCase {
  what: string;
  line: Buffer;
  /** No reply at all (a notification with bad params, a blank line). */
  expect: Expect | null;
}

/** Deterministic PRNG (mulberry32), so a failure can be replayed. */
export { rng };

/** What the server must answer to this line, or 'unsafe' when the line would run a method. Mirrors socket-server + dispatch. */
export function expectFor(withNewline: Buffer): Expect | null | 'unsafe' {
  const line = withNewline.subarray(0, withNewline.length - 1);
  if (line.length > MAX_LINE_BYTES) return { id: leadingId(line), code: 'line_too_long' };
  if (!line.some((c) => c !== 0x20 && c !== 0x09 && c !== 0x0d)) return null;
  if (jsonShapeProblem(line)) return { id: leadingId(line), code: 'invalid_params' };
  let raw: unknown;
  try {
    raw = JSON.parse(line.toString('utf8'));
  } catch {
    return { id: null, code: 'parse_error' };
  }
  const req = requestSchema.safeParse(raw);
  if (!req.success) {
    const id = raw && typeof raw === 'object' && 'id' in raw ? requestSchema.shape.id.safeParse(raw.id) : undefined;
    return { id: id?.success && id.data !== undefined ? id.data : null, code: 'invalid_request' };
  }
  const { id, method, params } = req.data;
  const def = METHOD_TABLE.get(method);
  if (!def) return id === undefined ? null : { id, code: 'unknown_method' };
  if (def.params.safeParse(params === null ? undefined : params).success) return 'unsafe';
  return id === undefined ? null : { id, code: 'invalid_params' };
}

type Def = { type: string; [k: string]: unknown };
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** Values of every wrong kind: types, extremes, control characters, lone surrogates, nesting. */
function badValues(r: () => number): unknown[] {
  const nest = (n: number, leaf: unknown): unknown => (n === 0 ? leaf : r() < 0.5 ? [nest(n - 1, leaf)] : { k: nest(n - 1, leaf) });
  return [
    null, true, false, 0, -1, 1.5, -1e-9, 1e308, -1e308, 2 ** 53 + 1, -(2 ** 31), 4294967296,
    '', ' ', 'x', '\u0000', '\u001b[31mred\u001b[0m\u0007', '\r\n\t', '\u202eevil', '\ud800', '\udfff\ud800', 'é€😀', '../../etc/passwd',
    'w1:p1\n', 'w0:p0', 'w99999999999999999999:p1', 'a'.repeat(10_000),
    [], [1], ['x'], [null], [[[]]], [{}], {}, { a: 1 }, { length: 1e9 },
    nest(20, 'x'), nest(60, 1),
  ];
}

/** A plausible value for a schema (valid where easy), to build otherwise-good params around one bad field. */
function sample(s: z.ZodType, depth = 0): unknown {
  const d = defOf(s);
  if (depth > 8) return undefined;
  const tryAll = (xs: unknown[]) => xs.find((x) => s.safeParse(x).success) ?? xs[0];
  switch (d.type) {
    case 'optional':
    case 'default':
    case 'nullable':
      return sample(d.innerType as z.ZodType, depth + 1);
    case 'string':
      return tryAll(['w1:p1', 'w1', 'hook_fuzz', 'x', 'claude']);
    case 'number':
      return tryAll([1, 0, 100, 1000]);
    case 'boolean':
      return true;
    case 'literal':
      return (d.values as unknown[])[0];
    case 'enum':
      return Object.values(d.entries as Record<string, unknown>)[0];
    case 'array':
      return tryAll([[], [sample(d.element as z.ZodType, depth + 1)]]);
    case 'record':
      return {};
    case 'union':
      return sample((d.options as z.ZodType[])[0], depth + 1);
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(d.shape as Record<string, z.ZodType>)) {
        if (defOf(v).type !== 'optional') out[k] = sample(v, depth + 1);
      }
      return out;
    }
    default:
      return 'x';
  }
}

/** The object schema a method's params are (through optional/default), with its shape; or undefined. */
function objectOf(s: z.ZodType): { shape: Record<string, z.ZodType> } | undefined {
  let d = defOf(s);
  while (d.type === 'optional' || d.type === 'default') d = defOf(d.innerType as z.ZodType);
  return d.type === 'object' ? { shape: d.shape as Record<string, z.ZodType> } : undefined;
}

let seq = 0;
const nextId = () => `f${++seq}`;
const line = (s: string) => Buffer.from(s + '\n');

/** Candidate params for one method: each field wrong in every way, each required field missing, extra fields, wrong whole params. */
function paramCandidates(m: (typeof METHODS)[number], r: () => number): Array<{ what: string; params?: unknown; rawParams?: string }> {
  const out: Array<{ what: string; params?: unknown; rawParams?: string }> = [];
  const bad = badValues(r);
  for (const v of [...bad, 'x'.repeat(200_000)]) out.push({ what: 'params replaced', params: v });
  const obj = objectOf(m.params);
  const base = (sample(m.params) ?? {}) as Record<string, unknown>;
  if (obj) {
    for (const [field, schema] of Object.entries(obj.shape)) {
      for (const v of bad) out.push({ what: `${field} wrong`, params: { ...base, [field]: v } });
      out.push({ what: `${field} huge`, params: { ...base, [field]: 'z'.repeat(r() < 0.1 ? 1_000_000 : 100_000) } });
      if (defOf(schema).type !== 'optional' && defOf(schema).type !== 'default') {
        const { [field]: _gone, ...rest } = base;
        out.push({ what: `${field} missing`, params: rest });
      }
    }
    out.push({ what: 'extra field', params: { ...base, zz_extra: 1 } });
    out.push({ what: 'control-char key', params: { ...base, '\u0000\u001b': 'x' } });
    out.push({ what: '__proto__ key', rawParams: `{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}` });
  }
  return out;
}

/** Bad params for every method, the line built as a client would write it; only lines the server must refuse. */
export function methodCases(seed: number, perMethod: number): { cases: FuzzCase[]; skipped: number } {
  const r = rng(seed);
  const cases: FuzzCase[] = [];
  let skipped = 0;
  for (const m of METHODS) {
    const cands = paramCandidates(m, r);
    // A fixed-seed shuffle, then the first perMethod: every method gets the same share of the budget.
    for (let i = cands.length - 1; i > 0; i--) {
      const j = Math.floor(r() * (i + 1));
      [cands[i], cands[j]] = [cands[j], cands[i]];
    }
    for (const c of cands.slice(0, perMethod)) {
      const id = r() < 0.05 ? undefined : nextId();
      const text = c.rawParams !== undefined
        ? `{${id === undefined ? '' : `"id":${JSON.stringify(id)},`}"method":${JSON.stringify(m.name)},"params":${c.rawParams}}`
        : JSON.stringify({ id, method: m.name, params: c.params });
      const l = line(text);
      const e = expectFor(l);
      if (e === 'unsafe') {
        skipped++;
        continue;
      }
      cases.push({ what: `${m.name}: ${c.what}`, line: l, expect: e });
    }
  }
  return { cases, skipped };
}

/** Lines broken in every other way: not JSON, not an object, bad envelopes, depth and value bombs, huge ids, raw bytes. */
export function genericCases(seed: number, randomBinary: number): FuzzCase[] {
  const r = rng(seed);
  const texts: Array<[string, string | Buffer]> = [
    ['not json', 'this is not json'], ['open brace', '{'], ['cut', '{"id":1,'], ['close', '}'], ['bom', '\ufeff{"id":"bom","method":"ping"}'],
    ['NaN', 'NaN'], ['inf', '1e999'], ['number', '42'], ['true', 'true'], ['null', 'null'], ['array', '[]'], ['string', '"ping"'],
    ['trailing junk', '{"id":"tj","method":"ping"}}'], ['nul inside', '{"id":"n\u0000","method":"ping"}'],
    ['no method', '{"id":"nm"}'], ['method number', '{"id":"mn","method":7}'], ['method empty', '{"id":"me","method":""}'],
    ['method huge', JSON.stringify({ id: 'mh', method: 'm'.repeat(100_000) })], ['method nul', '{"id":"mz","method":"ping\\u0000"}'],
    ['method case', '{"id":"mc","method":"PING"}'], ['method space', '{"id":"ms","method":"ping "}'], ['method proto', '{"id":"mp","method":"__proto__"}'],
    ['method toString', '{"id":"mt","method":"toString"}'], ['method constructor', '{"id":"mk","method":"constructor"}'],
    ['id object', '{"id":{"a":1},"method":"ping"}'], ['id array', '{"id":[1],"method":"ping"}'], ['id bool', '{"id":true,"method":"ping"}'],
    ['id 201 chars', JSON.stringify({ id: 'i'.repeat(201), method: 'ping' })], ['id 1 MB', JSON.stringify({ id: 'i'.repeat(1_000_000), method: 'ping' })],
    ['id 1e308', '{"id":1e308,"method":"nope"}'], ['id -0', '{"id":-0,"method":"nope"}'], ['id 1e400', '{"id":1e400,"method":"nope"}'],
    ['id long number', `{"id":${'9'.repeat(5000)},"method":"nope"}`],
    ['depth bomb array 1M', '['.repeat(1_000_000)], ['depth bomb closed', '['.repeat(500_000) + ']'.repeat(500_000)],
    ['depth bomb in params', `{"id":"db1","method":"ping","params":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}`],
    ['depth bomb in id', `{"id":${'['.repeat(100)}${']'.repeat(100)},"method":"ping"}`],
    ['events.emit nested 10 000 deep', `{"id":"ee","method":"events.emit","params":{"type":"hook_fuzz","data":${'['.repeat(10_000)}${']'.repeat(10_000)}}}`],
    ['depth 66 after id', `{"id":"db2","method":"pane.list","params":${'['.repeat(64)}${']'.repeat(64)}}`],
    ['value flood', `{"id":"vf","method":"pane.send_keys","params":{"pane_id":"w1:p1","keys":[${'1,'.repeat(300_000)}1]}}`],
    ['quote flood', `{"id":"qf","method":"nope","params":"${'\\"'.repeat(1_000_000)}"}`],
    ['blank', '   '], ['cr only', '\r'], ['tabs', '\t\t'],
    ['over the line limit', `{"id":"big","method":"ping","params":"${'y'.repeat(MAX_LINE_BYTES)}"}`],
    ['invalid utf-8 in method', Buffer.concat([Buffer.from('{"id":"u8","method":"pi'), Buffer.from([0xff, 0xfe]), Buffer.from('ng"}')])],
    ['invalid utf-8 outside strings', Buffer.from([0x7b, 0xc3, 0x28, 0x7d])],
    ['overlong utf-8', Buffer.concat([Buffer.from('{"id":"ol","method":"'), Buffer.from([0xc0, 0xaf, 0xe0, 0x80, 0xaf]), Buffer.from('"}')])],
  ];
  for (let i = 0; i < randomBinary; i++) {
    const b = Buffer.alloc(1 + Math.floor(r() * 600));
    for (let k = 0; k < b.length; k++) b[k] = Math.floor(r() * 256);
    texts.push([`random bytes ${i}`, Buffer.from(b.filter((c) => c !== 0x0a))]);
  }
  // Valid JSON, random structure: objects that look like requests with random fields.
  for (let i = 0; i < randomBinary; i++) {
    const m = METHODS[Math.floor(r() * METHODS.length)].name;
    const junk = badValues(r)[Math.floor(r() * 40)];
    texts.push([`random envelope ${i}`, JSON.stringify(r() < 0.5 ? { id: junk, method: m } : { id: nextId(), method: junk, params: junk })]);
  }
  const out: FuzzCase[] = [];
  for (const [what, t] of texts) {
    const l = Buffer.concat([typeof t === 'string' ? Buffer.from(t) : t, Buffer.from('\n')]);
    const e = expectFor(l);
    if (e !== 'unsafe') out.push({ what, line: l, expect: e });
  }
  return out;
}
