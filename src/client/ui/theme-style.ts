// Maps theme styles (semantic roles) to Ink Text props.
import type { Style, Theme, ThemeRole } from '../../config/themes.js';

function color(c: string | undefined): string | undefined {
  if (!c || c === 'default') return undefined;
  if (c.startsWith('ansi:')) return `ansi256(${c.slice(5)})`;
  return c;
}

export interface TextStyle {
  color?: string;
  backgroundColor?: string;
  bold?: boolean;
  dimColor?: boolean;
  italic?: boolean;
  underline?: boolean;
  inverse?: boolean;
}

export function textStyle(s: Style | undefined): TextStyle {
  if (!s) return {};
  const out: TextStyle = {};
  const fg = color(s.fg);
  const bg = color(s.bg);
  if (fg) out.color = fg;
  if (bg) out.backgroundColor = bg;
  if (s.bold) out.bold = true;
  if (s.dim) out.dimColor = true;
  if (s.italic) out.italic = true;
  if (s.underline) out.underline = true;
  if (s.inverse) out.inverse = true;
  return out;
}

export const role = (theme: Theme, r: ThemeRole): TextStyle => textStyle(theme.roles[r]);

/** A run of text in one style: a piece of a pane's top edge or of the bar. */
export interface Segment {
  key: string;
  text: string;
  style: TextStyle;
}
