// `castellan machine enable NAME`: bring a disabled machine back.
import { updateProfiles } from '../../machines/index.js';
import { defineCommand, EXIT, UsageError } from '../define-command.js';

export default defineCommand({
  name: 'machine enable',
  usage: 'castellan machine enable NAME',
  summary: 'Use a disabled machine again.',
  positionals: true,
  run: async (ctx, { positionals }) => {
    if (positionals.length !== 1) throw new UsageError('give NAME');
    const [name] = positionals;
    updateProfiles(ctx.paths.machinesFile, (all) => {
      if (!all.some((m) => m.name === name)) throw new UsageError(`no machine named ${JSON.stringify(name).slice(0, 80)}`);
      return all.map((m) => (m.name === name ? { ...m, disabled: false } : m));
    });
    ctx.out(`machine ${name} enabled`);
    return EXIT.ok;
  },
});
