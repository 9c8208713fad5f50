// The chooser's door (tmux choose-tree): its state and keys, how its tree is read, and its rows as ui/chrome-lines.ts
// draws them (lines.ts; no Ink).
export { chooserGeometry, chooserInput, openChooser, settle, withData, rowsOf, type ChooserOutcome, type ChooserState, type ChooserTarget } from './input.js';
export { ChooserController, type ChooserHost, type SwitchTarget } from './controller.js';
export { loadPreview, loadTree } from './load.js';
export { buildRows, needsMe, targetOf, type ChooserPane, type ChooserSession, type ChooserWindow } from './tree.js';
export { chooserLines } from './lines.js';
export { watchMachinesAway } from './machine-thread.js';
export { firstWaitingElsewhere, jumpElsewhere, machineLister, waitingElsewhere, watchMachines, type MachineLister } from './machines.js';
