// The agent badge: its glyph and text (PaneFrame and StatusBar colour it with the theme's badge roles).
import type { AgentState } from '../../core/types.js';

export const BADGE_GLYPH: Record<AgentState, string> = { idle: '○', working: '●', blocked: '▲', done: '✔', unknown: '?' };

export function badgeText(state: AgentState, agent?: string): string {
  return `${agent ? agent + ' ' : ''}${BADGE_GLYPH[state]} ${state}`;
}
