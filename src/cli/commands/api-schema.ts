// `castellan api schema`: the JSON Schema of every socket method's params and result, from the method table.
import { z } from 'zod';
import { METHODS } from '../../api/methods/index.js';
import { PROTOCOL_VERSION } from '../../api/protocol.js';
import { defineCommand, EXIT } from '../define-command.js';

export function apiSchema(includeInternal: boolean): Record<string, unknown> {
  const methods: Record<string, unknown> = {};
  for (const m of METHODS) {
    if (m.internal && !includeInternal) continue;
    methods[m.name] = {
      description: m.description,
      params: z.toJSONSchema(m.params, { io: 'input', unrepresentable: 'any' }),
      result: z.toJSONSchema(m.result, { io: 'output', unrepresentable: 'any' }),
    };
  }
  return { protocol: PROTOCOL_VERSION, transport: 'Unix socket, newline-delimited JSON: {"id","method","params"} -> {"id","result"} | {"id","error":{"code","message"}}', methods };
}

export default defineCommand({
  name: 'api schema',
  usage: 'castellan api schema [--internal]',
  summary: 'Print the JSON Schema of the whole socket API.',
  options: { internal: { type: 'boolean' } },
  run: async (ctx, { values }) => {
    ctx.out(JSON.stringify(apiSchema(!!values.internal), null, 2));
    return EXIT.ok;
  },
});
