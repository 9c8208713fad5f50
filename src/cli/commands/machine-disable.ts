// `castellan machine disable NAME`: keep a machine but leave it out of --all-machines and connections.
import { updateProfiles } from '../../machines/index.js';
import { defineCommand, EXIT, UsageError } from '../define-command.js';

export default defineCommand({
  name: 'machine disable',
  usage: 'castellan machine disable NAME',
  summary: 'Leave a machine out (no connection is made to it) without forgetting it.',
  positionals: true,
  run: async (ctx, { positionals }) => {
    if (positionals.length !== 1) throw new UsageError('give NAME');
    const [name] = positionals;
    updateProfiles(ctx.paths.machinesFile, (all) => {
      if (!all.some((m) => m.name === name)) throw new UsageError(`no machine named ${JSON.stringify(name).slice(0, 80)}`);
      return all.map((m) => (m.name === name ? { ...m, disabled: true } : m));
    });
    ctx.out(`machine ${name} disabled`);
    return EXIT.ok;
  },
});
