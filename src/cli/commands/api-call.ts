// `castellan api call METHOD [JSON]`: one raw socket call, for scripts and debugging.
import { defineCommand, EXIT, UsageError } from '../define-command.js';

export default defineCommand({
  name: 'api call',
  usage: 'castellan api call METHOD [PARAMS_JSON] [--timeout-ms N]',
  summary: 'Call a socket method with JSON params and print the JSON result.',
  positionals: true,
  options: { 'timeout-ms': { type: 'string' } },
  run: async (ctx, { positionals, values }) => {
    const [method, json] = positionals;
    if (!method || positionals.length > 2) throw new UsageError('expected METHOD and optional PARAMS_JSON');
    let params: unknown;
    try {
      params = json ? JSON.parse(json) : undefined;
    } catch (e) {
      throw new UsageError(`PARAMS_JSON is not valid JSON: ${(e as Error).message}`);
    }
    const api = await ctx.connect();
    try {
      const result = await api.request(method, params, { timeoutMs: values['timeout-ms'] ? Number(values['timeout-ms']) : undefined });
      ctx.out(JSON.stringify(result, null, 2));
      return EXIT.ok;
    } finally {
      api.close();
    }
  },
});
