// The table of CLI commands: names, one-line summaries and lazy loaders (a hook call must not load the UI).
import type { CommandDef } from './define-command.js';

export interface CommandRow {
  name: string;
  summary: string;
  load(): Promise<{ default: CommandDef }>;
}

export const COMMAND_ROWS: CommandRow[] = [
  { name: 'attach', summary: 'Attach to the session (starting its server if needed) — the default', load: () => import('./commands/attach.js') },
  { name: 'server start', summary: 'Start a server with no client attached', load: () => import('./commands/server-start.js') },
  { name: 'server stop', summary: 'Stop the server and every pane', load: () => import('./commands/server-stop.js') },
  { name: 'server status', summary: 'Say whether a server runs (exit 0) or not (exit 3)', load: () => import('./commands/server-status.js') },
  { name: 'config check', summary: 'Validate the configuration layers and report problems with file and line', load: () => import('./commands/config-check.js') },
  { name: 'api schema', summary: 'Print the JSON Schema of every socket method', load: () => import('./commands/api-schema.js') },
  { name: 'api call', summary: 'Call one socket method with JSON params and print the result', load: () => import('./commands/api-call.js') },
];
