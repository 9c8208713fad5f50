// The one NAME the `machine` subcommands that change a profile take, checked, and the change applied under the file's lock.
import { type MachineProfile, updateProfiles } from '../machines/index.js';
import { type CliContext, UsageError } from './define-command.js';

export function changeMachine(ctx: CliContext, positionals: string[], change: (all: MachineProfile[], name: string) => MachineProfile[]): string {
  if (positionals.length !== 1) throw new UsageError('give NAME');
  const [name] = positionals;
  updateProfiles(ctx.paths.machinesFile, (all) => {
    if (!all.some((m) => m.name === name)) throw new UsageError(`no machine named ${JSON.stringify(name).slice(0, 80)}`);
    return change(all, name);
  });
  return name;
}
