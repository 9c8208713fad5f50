// The table of socket methods: one module each; the dispatcher, the CLI and `api schema` read it.
import type { MethodDef } from '../define-method.js';
import agentHook from './agent-hook.js';
import agentList from './agent-list.js';
import agentPrompt from './agent-prompt.js';
import agentStart from './agent-start.js';
import clientAction from './client-action.js';
import clientAnswer from './client-answer.js';
import clientAttach from './client-attach.js';
import clientCopy from './client-copy.js';
import clientDetach from './client-detach.js';
import clientInput from './client-input.js';
import clientResize from './client-resize.js';
import clientSshAgent from './client-ssh-agent.js';
import configReload from './config-reload.js';
import eventsEmit from './events-emit.js';
import eventsSubscribe from './events-subscribe.js';
import eventsUnsubscribe from './events-unsubscribe.js';
import eventsWait from './events-wait.js';
import hookDecide from './hook-decide.js';
import hookEvent from './hook-event.js';
import episodeEnd from './episode-end.js';
import episodeGet from './episode-get.js';
import episodeStart from './episode-start.js';
import paneBreak from './pane-break.js';
import paneClose from './pane-close.js';
import paneJoin from './pane-join.js';
import paneRespawn from './pane-respawn.js';
import paneResize from './pane-resize.js';
import paneSwap from './pane-swap.js';
import paneZoom from './pane-zoom.js';
import paneExplain from './pane-explain.js';
import paneFocus from './pane-focus.js';
import paneGet from './pane-get.js';
import paneList from './pane-list.js';
import paneRead from './pane-read.js';
import paneRename from './pane-rename.js';
import paneReportAgent from './pane-report-agent.js';
import paneResetAgent from './pane-reset-agent.js';
import paneSendKeys from './pane-send-keys.js';
import paneSendText from './pane-send-text.js';
import paneSplit from './pane-split.js';
import ping from './ping.js';
import connectionKeep from './connection-keep.js';
import popupClose from './popup-close.js';
import popupOpen from './popup-open.js';
import serverStop from './server-stop.js';
import uiAsk from './ui-ask.js';
import themeSet from './theme-set.js';
import windowClose from './window-close.js';
import windowLayout from './window-layout.js';
import windowList from './window-list.js';
import windowSynchronize from './window-synchronize.js';
import windowNew from './window-new.js';
import windowRename from './window-rename.js';
import windowSelect from './window-select.js';
import worktreeList from './worktree-list.js';
import worktreeReview from './worktree-review.js';
import worktreeCommit from './worktree-commit.js';
import worktreeMerge from './worktree-merge.js';
import worktreeRebase from './worktree-rebase.js';
import worktreeDiscard from './worktree-discard.js';
import worktreePrune from './worktree-prune.js';
import webStart from './web-start.js';
import webPair from './web-pair.js';
import webRevoke from './web-revoke.js';
import webStop from './web-stop.js';
import webHerd from './web-herd.js';
import webView from './web-view.js';
import webAct from './web-act.js';

export const METHODS: MethodDef[] = [
  ping,
  connectionKeep,
  serverStop,
  paneList,
  paneGet,
  paneSplit,
  paneClose,
  paneResize,
  paneZoom,
  paneSwap,
  paneBreak,
  paneJoin,
  paneRespawn,
  paneFocus,
  paneRename,
  paneSendText,
  paneSendKeys,
  paneRead,
  paneReportAgent,
  paneResetAgent,
  paneExplain,
  windowList,
  windowNew,
  windowSelect,
  windowRename,
  windowClose,
  windowLayout,
  windowSynchronize,
  popupOpen,
  popupClose,
  eventsSubscribe,
  eventsUnsubscribe,
  eventsWait,
  eventsEmit,
  hookDecide,
  hookEvent,
  uiAsk,
  agentList,
  agentStart,
  worktreeList,
  worktreeReview,
  worktreeCommit,
  worktreeMerge,
  worktreeRebase,
  worktreeDiscard,
  worktreePrune,
  webStart,
  webPair,
  webRevoke,
  webStop,
  webHerd,
  webView,
  webAct,
  agentPrompt,
  agentHook,
  episodeStart,
  episodeEnd,
  episodeGet,
  configReload,
  themeSet,
  clientAttach,
  clientInput,
  clientResize,
  clientAction,
  clientDetach,
  clientCopy,
  clientAnswer,
  clientSshAgent,
] as MethodDef[];

export const METHOD_TABLE: ReadonlyMap<string, MethodDef> = new Map(METHODS.map((m) => [m.name, m]));
