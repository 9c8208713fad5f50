// `castellan machine enable NAME`: bring a disabled machine back.
import { defineCommand, EXIT } from '../define-command.js';
import { changeMachine } from '../machine-arg.js';

export default defineCommand({
  name: 'machine enable',
  usage: 'castellan machine enable NAME',
  summary: 'Use a disabled machine again.',
  positionals: true,
  run: async (ctx, { positionals }) => {
    const name = changeMachine(ctx, positionals, (all, n) => all.map((m) => (m.name === n ? { ...m, disabled: false } : m)));
    ctx.out(`machine ${name} enabled`);
    return EXIT.ok;
  },
});
