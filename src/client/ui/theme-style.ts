// Maps theme styles (semantic roles) to Ink Text props, and those props to SGR as Ink's Text applies them.
import chalk from 'chalk';
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

/** One screen row of an overlay drawn by hand: runs of styled text from its left edge. */
export type StyledRow = Array<{ text: string; style: TextStyle }>;

/** The text styled as Ink's Text styles it (the same chalk, in the same order), so what is drawn without Ink matches. */
export function paint(text: string, s: TextStyle): string {
  if (!s.color && !s.backgroundColor && !s.bold && !s.dimColor && !s.italic && !s.underline && !s.inverse) return text;
  let out = text;
  if (s.dimColor) out = chalk.dim(out);
  if (s.color) out = colorize(out, s.color, false);
  if (s.backgroundColor) out = colorize(out, s.backgroundColor, true);
  if (s.bold) out = chalk.bold(out);
  if (s.italic) out = chalk.italic(out);
  if (s.underline) out = chalk.underline(out);
  if (s.inverse) out = chalk.inverse(out);
  return out;
}

const ANSI256 = /^ansi256\(\s?(\d+)\s?\)$/;
const RGB = /^rgb\(\s?(\d+),\s?(\d+),\s?(\d+)\s?\)$/;

/** Ink's colour names: chalk's own, `#rrggbb`, `ansi256(n)` and `rgb(r,g,b)`. */
function colorize(text: string, color: string, bg: boolean): string {
  const c = chalk as unknown as Record<string, ((s: string) => string) | undefined>;
  if (color in chalk) return c[bg ? `bg${color[0].toUpperCase()}${color.slice(1)}` : color]?.(text) ?? text;
  if (color.startsWith('#')) return bg ? chalk.bgHex(color)(text) : chalk.hex(color)(text);
  const a = ANSI256.exec(color);
  if (a) return bg ? chalk.bgAnsi256(Number(a[1]))(text) : chalk.ansi256(Number(a[1]))(text);
  const r = RGB.exec(color);
  if (r) return bg ? chalk.bgRgb(Number(r[1]), Number(r[2]), Number(r[3]))(text) : chalk.rgb(Number(r[1]), Number(r[2]), Number(r[3]))(text);
  return text;
}
