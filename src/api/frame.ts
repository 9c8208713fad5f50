// The frame message a server sends an attached client: changed view, changed pane rows, cursor, modes.
import type { ViewModel } from '../core/view.js';

export interface FrameCursor {
  pane: string;
  x: number;
  y: number;
  visible: boolean;
  shape: string;
  blink: boolean;
  isDefault?: boolean;
}

export interface Frame {
  view?: ViewModel;
  /** Changed rows per pane: [row index, SGR text]; `size` is the pane's screen size the rows belong to. */
  panes: Record<string, { cols: number; rows: number; lines: Array<[number, string]> }>;
  cursor: FrameCursor | null;
  /** The focused pane wants mouse reports (the client turns on terminal mouse reporting). */
  mouse: boolean;
  /** The client must forget what it drew and repaint everything (attach, resize, redraw). */
  reset?: boolean;
  /** The focused pane is in copy mode: keys go to copy mode (`prompt`: a search is being typed). */
  copy: { pane: string; keys: 'vi' | 'emacs'; prompt: boolean } | null;
}
