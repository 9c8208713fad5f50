// The table of CLI commands: names, one-line summaries and lazy loaders (a hook call must not load the UI).
import type { CommandDef } from './define-command.js';
import { TMUX_ROWS } from './tmux-rows.js';

export interface CommandRow {
  name: string;
  summary: string;
  /** Other spellings, mostly tmux's (`ls`, `a`, `kill-session`): the muscle memory of a tmux user. */
  aliases?: string[];
  /** Left out of the command list (plumbing another castellan runs, like `machine bridge`). */
  hidden?: boolean;
  load(): Promise<{ default: CommandDef }>;
}

/** The row for a command name or alias (one or two words), or undefined. */
export function findRow(name: string): CommandRow | undefined {
  return COMMAND_ROWS.find((r) => r.name === name) ?? COMMAND_ROWS.find((r) => r.aliases?.includes(name));
}

export const COMMAND_ROWS: CommandRow[] = [
  { name: 'new', summary: 'Attach to the session, starting its server if needed — the default', aliases: ['new-session'], load: () => import('./commands/new-session.js') },
  { name: 'attach', summary: 'Attach to a running session (or one its snapshot brings back); no session is an error, as in tmux', aliases: ['a', 'at', 'attach-session'], load: () => import('./commands/attach.js') },
  { name: 'server start', summary: 'Start a server with no client attached', load: () => import('./commands/server-start.js') },
  { name: 'web', summary: 'Serve the web view (a phone page of the herd); --pair signs a browser in, --revoke signs all out', load: () => import('./commands/web.js') },
  { name: 'server stop', summary: 'Stop the server and every pane; the next start restores the session', load: () => import('./commands/server-stop.js') },
  { name: 'kill-server', summary: 'End the session for good, as tmux does (its snapshot kept aside a day: session restore)', load: () => import('./commands/kill-session.js') },
  { name: 'kill-session', summary: 'End a named session for good: kill-session -t NAME (its snapshot kept aside a day: session restore)', load: () => import('./commands/kill-session.js') },
  { name: 'server status', summary: 'Say whether a server runs (exit 0) or not (exit 3)', load: () => import('./commands/server-status.js') },
  { name: 'herd wait', summary: 'Wait until panes\' agents are in a state: --pane w1:p1 (or --children) --status idle,done [--timeout-ms N]', load: () => import('./commands/herd-wait.js') },
  { name: 'herd list', summary: 'Every pane\'s agent and state', load: () => import('./commands/herd-list.js') },
  { name: 'herd report', summary: 'Report an agent state for a pane (--pane --agent --state [--source hook])', load: () => import('./commands/herd-report.js') },
  { name: 'herd reset', summary: 'Forget a pane\'s hook-reported state (back to heuristics)', load: () => import('./commands/herd-reset.js') },
  { name: 'herd explain', summary: 'Why a pane\'s badge shows what it shows (hook, screen rules, agent identity)', load: () => import('./commands/herd-explain.js') },
  { name: 'machine add', summary: 'Remember another host reached over ssh: machine add NAME TARGET [--session S]', load: () => import('./commands/machine-add.js') },
  { name: 'machine list', summary: 'List the machines', load: () => import('./commands/machine-list.js') },
  { name: 'machine rename', summary: 'Rename a machine', load: () => import('./commands/machine-rename.js') },
  { name: 'machine disable', summary: 'Leave a machine out without forgetting it', load: () => import('./commands/machine-disable.js') },
  { name: 'machine enable', summary: 'Use a disabled machine again', load: () => import('./commands/machine-enable.js') },
  { name: 'machine remove', summary: 'Forget a machine', load: () => import('./commands/machine-remove.js') },
  { name: 'machine bridge', summary: 'The remote half of a machine connection (run by ssh)', hidden: true, load: () => import('./commands/machine-bridge.js') },
  { name: 'pane split', summary: 'Split a pane; prints the new pane id (-- COMMAND runs in it; --sub-harness nests it under this pane\'s episode)', load: () => import('./commands/pane-split.js') },
  { name: 'pane send', summary: 'Type text or press keys in a pane', load: () => import('./commands/pane-send.js') },
  { name: 'pane read', summary: 'Print a pane\'s screen or scrollback', load: () => import('./commands/pane-read.js') },
  { name: 'pane list', summary: 'List panes', load: () => import('./commands/pane-list.js') },
  { name: 'pane close', summary: 'Close a pane', load: () => import('./commands/pane-close.js') },
  { name: 'pane break', summary: 'Move a pane into a new window of its own (tmux break-pane)', load: () => import('./commands/pane-break.js') },
  { name: 'pane join', summary: 'Move a pane beside another, from any window (tmux join-pane)', load: () => import('./commands/pane-join.js') },
  { name: 'pane respawn', summary: 'Rerun an exited pane\'s command (tmux respawn-pane)', load: () => import('./commands/pane-respawn.js') },
  { name: 'pane focus', summary: 'Focus a pane', load: () => import('./commands/pane-focus.js') },
  { name: 'pane rename', summary: 'Name a pane', load: () => import('./commands/pane-rename.js') },
  { name: 'pane resize', summary: 'Move a pane\'s border by cells (tmux resize-pane -L/-R/-U/-D)', load: () => import('./commands/pane-resize.js') },
  { name: 'pane zoom', summary: 'Zoom a pane to its whole window, or unzoom (tmux resize-pane -Z)', load: () => import('./commands/pane-zoom.js') },
  { name: 'pane swap', summary: 'Swap two panes\' places (tmux swap-pane)', load: () => import('./commands/pane-swap.js') },
  { name: 'window list', summary: 'List windows', load: () => import('./commands/window-list.js') },
  { name: 'window select', summary: 'Show a window to attached clients: --window ID|N, --next, --prev', load: () => import('./commands/window-select.js') },
  { name: 'window rename', summary: 'Name a window: castellan window rename [--window ID|N] NAME', load: () => import('./commands/window-rename.js') },
  { name: 'window close', summary: 'Close a window and its panes', load: () => import('./commands/window-close.js') },
  { name: 'window new', summary: 'Open a window; prints its id and its pane\'s id', load: () => import('./commands/window-new.js') },
  { name: 'window synchronize', summary: 'Type into every pane of a window at once (tmux synchronize-panes)', load: () => import('./commands/window-synchronize.js') },
  { name: 'popup', summary: 'Open a popup over the attached client\'s layout running COMMAND (or your shell); it closes when COMMAND exits', aliases: ['display-popup', 'popup open'], load: () => import('./commands/popup.js') },
  { name: 'window layout', summary: 'Arrange a window\'s panes: even-horizontal, even-vertical, main-horizontal, main-vertical, tiled, next, prev', load: () => import('./commands/window-layout.js') },
  { name: 'session list', summary: 'List sessions: running ones (attached clients, windows, panes) and saved ones a start brings back', aliases: ['ls', 'list-sessions'], load: () => import('./commands/session-list.js') },
  { name: 'session attach', summary: 'Attach to a named session (starting it if needed)', load: () => import('./commands/session-attach.js') },
  { name: 'session stop', summary: 'Stop a named session; its next start restores it (--forget deletes its snapshot)', load: () => import('./commands/session-stop.js') },
  { name: 'session restore', summary: 'Bring back a killed session, or the snapshot a --no-restore start set aside', load: () => import('./commands/session-restore.js') },
  { name: 'session snapshots', summary: 'List saved session snapshots (what a start restores) and the ones kept aside', load: () => import('./commands/session-snapshots.js') },
  { name: 'theme set', summary: 'Switch the theme of every attached client: castellan theme set light', load: () => import('./commands/theme-set.js') },
  { name: 'config check', summary: 'Validate the configuration layers and report problems with file and line', load: () => import('./commands/config-check.js') },
  { name: 'config reload', summary: 'Make the running server read its config files again (it also does when they change)', load: () => import('./commands/config-reload.js') },
  { name: 'api schema', summary: 'Print the JSON Schema of every socket method', load: () => import('./commands/api-schema.js') },
  { name: 'agent list', summary: 'List agent definitions (.castellan/agents, ~/.castellan/agents): trust status, hooks, problems', load: () => import('./commands/agent-list.js') },
  { name: 'agent start', summary: 'Start an agent definition in a new pane: castellan agent start NAME [--pane new|ID] [--parent PANE] [--prompt TEXT]', load: () => import('./commands/agent-start.js') },
  { name: 'review', summary: 'Review an agent worktree (castellan review --pane ID): files, diff in your pager, commit / merge / rebase / discard', load: () => import('./commands/review.js') },
  { name: 'worktree list', summary: 'The agents\' git worktrees: branch, pane, changes, and the work each holds', load: () => import('./commands/worktree-list.js') },
  { name: 'worktree prune', summary: 'Remove the agents\' worktrees that hold no work and no pane works in; say why others stay', load: () => import('./commands/worktree-prune.js') },
  { name: 'worktree discard', summary: 'Remove an agent worktree and its branch, whatever it holds (asks first; --force without a terminal)', load: () => import('./commands/worktree-discard.js') },
  { name: 'run', summary: 'Run an agent as a governed episode: SessionStart/SessionEnd hooks around it (--goal, --plugin, --pane new, --rlm lets it delegate to sub-harness panes, --json)', load: () => import('./commands/run.js') },
  { name: 'exec', summary: 'Run a command as a governed shell tool call (hooks, permissions, plan verify); exit 77 if denied', load: () => import('./commands/exec.js') },
  { name: 'trust', summary: 'Let this repo\'s castellan.toml, .castellan/local.toml and .castellan/agents/*.md run commands (by sha256); --list, --revoke', load: () => import('./commands/trust.js') },
  { name: 'acp', summary: 'Serve an editor over ACP (stdio), relaying to an ACP agent under governance: castellan acp -- gemini --acp', load: () => import('./commands/acp.js') },
  { name: 'mcp', summary: 'Serve governed shell/exec tools to MCP clients over stdio', load: () => import('./commands/mcp.js') },
  { name: 'hook', summary: 'Bridge for agents\' hook systems: castellan hook AGENT EVENT (reads the agent\'s JSON on stdin)', load: () => import('./commands/hook.js') },
  { name: 'integrations install', summary: 'Install castellan\'s hook bridge into an agent\'s settings (claude, codex, gemini, pi, copilot, qwen, opencode, kilo)', load: () => import('./commands/integrations-install.js') },
  { name: 'integrations uninstall', summary: 'Remove castellan\'s hook entries from an agent\'s settings', load: () => import('./commands/integrations-uninstall.js') },
  { name: 'integrations matrix', summary: 'Which castellan stages each harness fires (Claude, Codex, Gemini, pi, shell plugin, MCP); --json, --markdown', load: () => import('./commands/integrations-matrix.js') },
  { name: 'integrations install-skill', summary: 'Install the castellan agent skill (spawn, prompt, wait for and read helper panes) for claude, codex, gemini, pi, copilot, qwen, opencode, kilo', load: () => import('./commands/integrations-install-skill.js') },
  { name: 'detect', summary: 'Run agent-state detection on a saved screen: castellan detect --agent NAME --screen FILE', load: () => import('./commands/detect.js') },
  { name: 'api call', summary: 'Call one socket method with JSON params and print the result', load: () => import('./commands/api-call.js') },
  // tmux's names (split-window, send-keys, select-window, ...): one row each, from core/tmux-commands.ts.
  ...TMUX_ROWS,
];
