// What the shell plugin fires (castellan exec, castellan run and the sub-harness panes of `run --rlm`), for the harness parity matrix.
import type { HarnessStageTable } from './stage-table.js';

export const SHELL_PLUGIN_STAGES: HarnessStageTable = {
  harness: 'shell',
  label: 'shell plugin (`castellan exec` / `run`)',
  stages: {
    state: { via: ['castellan herd report', 'share/hooks/agent-state.sh'], note: 'a script reports any state for itself or another pane' },
    SessionStart: { via: ['castellan run', 'sub-harness pane'], note: 'before the program starts; a failing hook stops it (a sub-harness split is refused)' },
    SessionEnd: { via: ['castellan run', 'sub-harness pane'], note: 'after the program exited, with its status' },
    PreToolUse: { via: ['castellan exec'], note: 'tool `shell`; then the permission policy and plan verify' },
    PostToolUse: { via: ['castellan exec'] },
    UserPromptSubmit: { via: [] },
    SubagentStart: { via: [] },
    SubagentStop: { via: [] },
    PostSampling: { via: [] },
  },
};
