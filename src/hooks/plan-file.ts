// Reads a workflow plan file (`castellan exec --plan FILE`): JSON, YAML or TOML, the plan itself or under workflow_plan / tool_workflow.
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parseTomlRecovering } from '../config/toml.js';

const MAX_PLAN_FILE = 1024 * 1024;

function parseToml(text: string): unknown {
  const r = parseTomlRecovering(text);
  // A plan is all-or-nothing: the recovering parser's partial result is not good enough.
  if (r.errors.length) throw new Error(`line ${r.errors[0].line}: ${r.errors[0].message}`);
  return r.value;
}

const parseJson = (text: string): unknown => JSON.parse(text);
// yaml is loaded only for plans that need it: it costs ~100 ms to load, on every `castellan exec`.
const parseYamlStrict = async (text: string): Promise<unknown> => (await import('yaml')).parse(text, { schema: 'core', uniqueKeys: true, maxAliasCount: 50 });

/** Parses plan text by extension (.json, .yaml/.yml, .toml), or tries JSON, YAML, TOML in turn. Throws with a readable message. */
export async function parsePlanText(text: string, name = 'plan'): Promise<unknown> {
  const ext = extname(name).toLowerCase();
  const parsers: Array<[string, (t: string) => unknown]> =
    ext === '.json' ? [['JSON', parseJson]] : ext === '.yaml' || ext === '.yml' ? [['YAML', parseYamlStrict]] : ext === '.toml' ? [['TOML', parseToml]] : [['JSON', parseJson], ['TOML', parseToml], ['YAML', parseYamlStrict]];
  const errors: string[] = [];
  for (const [kind, parse] of parsers) {
    try {
      return unwrap(await parse(text));
    } catch (e) {
      errors.push(`${kind}: ${(e as Error).message.split('\n')[0]}`);
    }
  }
  throw new Error(`${name} is not a valid plan file (${errors.join('; ')})`);
}

/** `{workflow_plan: {...}}` / `{tool_workflow: {...}}` → the plan; anything else is taken as the plan itself. */
export function unwrap(doc: unknown): unknown {
  if (doc && typeof doc === 'object' && !Array.isArray(doc)) {
    const o = doc as Record<string, unknown>;
    if (o.workflow_plan !== undefined) return o.workflow_plan;
    if (o.tool_workflow !== undefined) return o.tool_workflow;
  }
  return doc;
}

export async function readPlanFile(path: string): Promise<unknown> {
  const buf = readFileSync(path);
  if (buf.length > MAX_PLAN_FILE) throw new Error(`${path} is larger than ${MAX_PLAN_FILE} bytes; a plan is a short list of steps`);
  return parsePlanText(buf.toString('utf8'), path);
}
