// The popup's door (tmux display-popup): the server's per-client floating ptys; sizes and arguments are in core/popup-spec.ts.
export { PopupManager, popupEnv, type PopupHost, type PopupInfo, type PopupRequest } from './manager.js';
