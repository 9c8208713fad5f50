// What the chrome is drawn from (the view, the client's own UI state, the theme, the screen), for the hand path and Ink's alike.
import type { Theme } from '../../config/themes.js';
import type { Binding } from '../../input/keymap.js';
import type { ViewModel } from '../../core/view.js';
import type { LocalUi } from '../ui-state.js';

export interface ChromeProps {
  view: ViewModel;
  local: LocalUi;
  theme: Theme;
  cols: number;
  rows: number;
  barAtTop: boolean;
  borders: string;
  bindings: Binding[];
  prefixKey: string;
}

/** Row where the window area starts on screen. */
export const areaTop = (barAtTop: boolean) => (barAtTop ? 1 : 0);
