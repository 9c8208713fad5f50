// `castellan machine remove NAME`: forget a machine (nothing on it is touched).
import { updateProfiles } from '../../machines/index.js';
import { defineCommand, EXIT, UsageError } from '../define-command.js';

export default defineCommand({
  name: 'machine remove',
  usage: 'castellan machine remove NAME',
  summary: 'Forget a machine (its server and agents keep running there).',
  positionals: true,
  run: async (ctx, { positionals }) => {
    if (positionals.length !== 1) throw new UsageError('give NAME');
    const [name] = positionals;
    updateProfiles(ctx.paths.machinesFile, (all) => {
      if (!all.some((m) => m.name === name)) throw new UsageError(`no machine named ${JSON.stringify(name).slice(0, 80)}`);
      return all.filter((m) => m.name !== name);
    });
    ctx.out(`machine ${name} removed`);
    return EXIT.ok;
  },
});
