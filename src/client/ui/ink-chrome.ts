// The chrome laid out by Ink (React + yoga): overlays and panes under 2x2. Loaded only through ink-door.ts.
import React from 'react';
import { renderToString } from 'ink';
import { Chrome } from './Chrome.js';
import type { ChromeProps } from './chrome-props.js';

/** The chrome's lines as Ink draws them (at most `rows`): what draws overlays, and what the hand path is checked against. */
export function inkLines(p: ChromeProps): string[] {
  return renderToString(React.createElement(Chrome, p), { columns: p.cols }).split('\n').slice(0, p.rows);
}
