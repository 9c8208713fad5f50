// `castellan machine disable NAME`: keep a machine but leave it out of --all-machines and connections.
import { defineCommand, EXIT } from '../define-command.js';
import { changeMachine } from '../machine-arg.js';

export default defineCommand({
  name: 'machine disable',
  usage: 'castellan machine disable NAME',
  summary: 'Leave a machine out (no connection is made to it) without forgetting it.',
  positionals: true,
  run: async (ctx, { positionals }) => {
    const name = changeMachine(ctx, positionals, (all, n) => all.map((m) => (m.name === n ? { ...m, disabled: true } : m)));
    ctx.out(`machine ${name} disabled`);
    return EXIT.ok;
  },
});
