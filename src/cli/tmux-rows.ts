// tmux's command names as CLI commands (castellan split-window -h ...), one row per entry of core/tmux-commands.ts.
import { TMUX_COMMANDS } from '../core/tmux-commands.js';
import type { CommandRow } from './table.js';

export const TMUX_ROWS: CommandRow[] = TMUX_COMMANDS.filter((c) => c.cli).map((c) => ({
  name: c.name,
  summary: `tmux's ${c.name}: ${c.means}`,
  ...(c.aliases.length ? { aliases: c.aliases } : {}),
  load: () => import('./commands/tmux-alias.js').then((m) => ({ default: m.tmuxAlias(c.name) })),
}));
