// `castellan machine remove NAME`: forget a machine (nothing on it is touched).
import { defineCommand, EXIT } from '../define-command.js';
import { changeMachine } from '../machine-arg.js';

export default defineCommand({
  name: 'machine remove',
  usage: 'castellan machine remove NAME',
  summary: 'Forget a machine (its server and agents keep running there).',
  positionals: true,
  run: async (ctx, { positionals }) => {
    const name = changeMachine(ctx, positionals, (all, n) => all.filter((m) => m.name !== n));
    ctx.out(`machine ${name} removed`);
    return EXIT.ok;
  },
});
