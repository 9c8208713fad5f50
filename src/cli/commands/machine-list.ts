// `castellan machine list`: the machines this castellan knows (no connection is made).
import { readProfiles } from '../../machines/index.js';
import { table } from '../cli-util.js';
import { defineCommand, EXIT } from '../define-command.js';

export default defineCommand({
  name: 'machine list',
  usage: 'castellan machine list [--json]',
  summary: 'List the machines: name, ssh target, remote session, enabled or not.',
  options: { json: { type: 'boolean' } },
  run: async (ctx, { values }) => {
    const all = readProfiles(ctx.paths.machinesFile);
    if (values.json) {
      ctx.out(JSON.stringify(all.map((m) => ({ name: m.name, target: m.target, session: m.session ?? null, enabled: !m.disabled }))));
      return EXIT.ok;
    }
    if (!all.length) {
      ctx.out('no machines (add one: castellan machine add NAME TARGET)');
      return EXIT.ok;
    }
    ctx.out(table([['NAME', 'TARGET', 'SESSION', 'ENABLED'], ...all.map((m) => [m.name, m.target, m.session ?? 'default', m.disabled ? 'no' : 'yes'])]));
    return EXIT.ok;
  },
});
