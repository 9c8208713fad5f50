// The door to a pane's history: the compact store for lines that left the screen, and one list over it and xterm.
export { Scrollback, HistoryView, SMALL, BATCH } from './scrollback.js';
export { ArchivedLine, type LineView } from './archived-line.js';
