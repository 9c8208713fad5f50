// Tags for everything castellan puts into an agent's context: who decides (source) and how hard it pushes (ambient/advisory/directive).
import { cleanText } from '../core/text.js';

export type Strength = 'weak' | 'strong';

/**
 * One piece of context for an agent. `source` is always written by castellan (never taken from a hook), e.g.
 * `castellan:agent:my-agent:SubagentStart`.
 */
export type Injection =
  | { kind: 'ambient'; source: string; text: string }
  | { kind: 'advisory'; source: string; text: string; strength: Strength }
  | { kind: 'directive'; source: string; text: string; reason: string };

const MAX_TEXT = 64 * 1024;
const SOURCE = /^castellan(?::[A-Za-z0-9._-]+)+$/;

/** Text content: `&`, `<`, `>` escaped, so text from a hook can never open or close a tag. */
export function escapeText(s: string): string {
  return cleanText(s, MAX_TEXT).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Attribute values: additionally quotes and newlines, so a value cannot end its attribute. */
export function escapeAttr(s: string): string {
  return escapeText(s).replace(/"/g, '&quot;').replace(/'/g, '&#39;').replace(/\r?\n|\r|\t/g, ' ').slice(0, 2000);
}

/** castellan writes the source; anything not of its own shape is a programming error, not hook input. */
function checkedSource(source: string): string {
  if (!SOURCE.test(source)) throw new Error(`invalid injection source ${JSON.stringify(source)}`);
  return source;
}

/** A castellan source for an agent definition's stage: `castellan:agent:NAME:STAGE`. */
export function agentSource(agentType: string, stage: string): string {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9._-]/g, '_') || '_';
  return `castellan:agent:${safe(agentType)}:${safe(stage)}`;
}

export function render(i: Injection): string {
  const source = escapeAttr(checkedSource(i.source));
  const body = escapeText(i.text.trim());
  switch (i.kind) {
    case 'ambient':
      return `<ambient source="${source}">\n${body}\n</ambient>`;
    case 'advisory':
      return `<advisory source="${source}" strength="${i.strength === 'strong' ? 'strong' : 'weak'}">\n${body}\n</advisory>`;
    case 'directive':
      // A directive always says why; an empty reason is castellan's bug, so it is named rather than left blank.
      return `<directive source="${source}" reason="${escapeAttr(i.reason.trim() || 'no reason given')}">\n${body}\n</directive>`;
  }
}

/** Several injections as one block of context (blank line between them); empty text is dropped. */
export function renderAll(list: readonly Injection[]): string {
  return list
    .filter((i) => i.text.trim())
    .map(render)
    .join('\n\n');
}
