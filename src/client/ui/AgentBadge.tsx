// The agent badge: a glyph and the state, coloured by the theme's badge roles.
import React from 'react';
import { Text } from 'ink';
import type { Theme } from '../../config/themes.js';
import type { AgentState } from '../../core/types.js';
import { role } from './theme-style.js';

export const BADGE_GLYPH: Record<AgentState, string> = { idle: '○', working: '●', blocked: '▲', done: '✔', unknown: '?' };

export function badgeText(state: AgentState, agent?: string): string {
  return `${agent ? agent + ' ' : ''}${BADGE_GLYPH[state]} ${state}`;
}

export function AgentBadge({ state, agent, theme }: { state: AgentState; agent?: string; theme: Theme }) {
  return <Text {...role(theme, `badge.${state}`)}>{badgeText(state, agent)}</Text>;
}
