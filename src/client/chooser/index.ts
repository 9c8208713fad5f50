// The chooser's door (tmux choose-tree): its state and keys, its Ink overlay, and how its tree is read.
export { ChooserOverlay } from './ChooserOverlay.js';
export { chooserGeometry, chooserInput, openChooser, settle, withData, rowsOf, type ChooserOutcome, type ChooserState, type ChooserTarget } from './input.js';
export { ChooserController, type ChooserHost, type SwitchTarget } from './controller.js';
export { loadPreview, loadTree } from './load.js';
export { buildRows, needsMe, targetOf, type ChooserPane, type ChooserSession, type ChooserWindow } from './tree.js';
