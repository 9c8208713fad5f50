// The chooser's door (tmux choose-tree): its state and keys and how its tree is read. Its Ink overlay (ChooserOverlay.tsx)
// is drawn by ui/Chrome.tsx, behind ui/ink-door.ts: importing this door loads no Ink.
export { chooserGeometry, chooserInput, openChooser, settle, withData, rowsOf, type ChooserOutcome, type ChooserState, type ChooserTarget } from './input.js';
export { ChooserController, type ChooserHost, type SwitchTarget } from './controller.js';
export { loadPreview, loadTree } from './load.js';
export { buildRows, needsMe, targetOf, type ChooserPane, type ChooserSession, type ChooserWindow } from './tree.js';
