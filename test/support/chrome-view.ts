// The chrome tests' fixture: a two-pane window of an 80x24 client, and ChromeProps around it.
import type { ChromeProps } from '../../src/client/ui/chrome-props.js';
import { loadTheme } from '../../src/config/themes.js';
import type { ViewModel } from '../../src/core/view.js';
import { DEFAULT_BINDINGS } from '../../src/input/default-keymap.js';

export const defaultTheme = loadTheme('default', {}).theme;

export function view(over: Partial<ViewModel> = {}): ViewModel {
  return {
    session: 'work',
    area: { cols: 80, rows: 23 },
    windows: [
      { id: 'w1', index: 1, name: 'agents', current: true, alert: false, panes: 2, rollup: 'working', zoomed: false },
      { id: 'w2', index: 2, name: 'build', current: false, alert: true, panes: 1, rollup: 'blocked', zoomed: false },
    ],
    window: {
      id: 'w1',
      zoomed: false,
      panes: [
        { id: 'w1:p1', title: 'bash', rect: { x: 0, y: 0, w: 40, h: 23 }, focused: false, state: 'unknown', waiting: false },
        { id: 'w1:p2', title: 'claude', rect: { x: 40, y: 0, w: 40, h: 23 }, focused: true, agent: 'claude', state: 'working', waiting: false },
      ],
    },
    counts: { blocked: 1, done: 0, working: 1, idle: 0, unknown: 1 },
    ...over,
  };
}

export const chromeProps = (p: Partial<ChromeProps> = {}): ChromeProps => ({
  view: view(), local: { prefix: false }, theme: defaultTheme, cols: 80, rows: 24, barAtTop: false, borders: 'rounded', bindings: DEFAULT_BINDINGS, prefixKey: 'C-b', ...p,
});
