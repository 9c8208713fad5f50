// Text from another host is data, never terminal commands: controls are stripped before anything prints or draws it.
import { stripControls, stripControlsKeepLines } from '../core/text.js';

/** One line of remote text (a title, a message, an error): no control character survives. */
export function cleanRemote(s: unknown, max = 4000): string {
  return stripControls(String(s ?? '')).slice(0, max);
}

/** Remote screen text: newlines and tabs stay, every other control goes. */
export function cleanRemoteLines(s: string): string {
  return stripControlsKeepLines(s);
}

// eslint-disable-next-line no-control-regex
const SGR_OR_CONTROL = /\u001b\[[0-9;:]{0,64}m|[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** Remote screen text with colours (`pane read --ansi`): SGR sequences stay; OSC, DCS, cursor moves and the rest lose their ESC. */
export function cleanRemoteAnsi(s: string): string {
  return s.replace(SGR_OR_CONTROL, (m) => (m.length > 1 ? m : ''));
}

/** Every string in a message from another host, cleaned as screen text with colours: what the client draws (frame
 * rows, titles, badges) can carry SGR and nothing else. Depth and size are bounded by the reply limit already. */
export function cleanRemoteDeep<T>(v: T, depth = 0): T {
  if (typeof v === 'string') return cleanRemoteAnsi(v) as T;
  if (!v || typeof v !== 'object' || depth > 64) return v;
  if (Array.isArray(v)) return v.map((x) => cleanRemoteDeep(x, depth + 1)) as T;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[cleanRemoteAnsi(k)] = cleanRemoteDeep(x, depth + 1);
  return out as T;
}

/** JSON for a terminal: JSON.stringify escapes C0 controls but not DEL and C1 (U+009B is a CSI to some terminals). */
export function terminalJson(v: unknown): string {
  return JSON.stringify(v).replace(/[\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
