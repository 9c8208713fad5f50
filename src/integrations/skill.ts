// The castellan agent skill (docs/agent-skill/SKILL.md): where each agent looks for skills, and installing a copy there.
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { shellQuote } from './command-line.js';
import type { AgentName } from './types.js';

/** The skill as shipped (dist/integrations/ and src/integrations/ both sit two levels below the repo root). */
export const SKILL_SOURCE = fileURLToPath(new URL('../../docs/agent-skill/SKILL.md', import.meta.url));
export const SKILL_NAME = 'castellan';

/**
 * Every one of these agents reads Agent Skills (a folder with SKILL.md, YAML frontmatter name/description):
 * Claude Code ~/.claude/skills (or $CLAUDE_CONFIG_DIR/skills), project .claude/skills; Codex $CODEX_HOME/skills
 * (default ~/.codex/skills), project .agents/skills; Gemini CLI ~/.gemini/skills, project .gemini/skills;
 * pi $PI_CODING_AGENT_DIR/skills (default ~/.pi/agent/skills), project .pi/skills; Copilot CLI $COPILOT_HOME/skills
 * (default ~/.copilot/skills), project .github/skills; Qwen Code ~/.qwen/skills, project .qwen/skills; opencode
 * $XDG_CONFIG_HOME/opencode/skills, project .opencode/skills, and Kilo CLI the same under kilo (from their docs, not lab-checked).
 */
const configHome = (c: { home: string; env: NodeJS.ProcessEnv }) => c.env.XDG_CONFIG_HOME || join(c.home, '.config');

export function skillDir(agent: AgentName, scope: 'user' | 'project', c: { home: string; env: NodeJS.ProcessEnv; dir: string }): string {
  const user = scope === 'user';
  switch (agent) {
    case 'claude':
      return user ? join(c.env.CLAUDE_CONFIG_DIR || join(c.home, '.claude'), 'skills', SKILL_NAME) : join(c.dir, '.claude', 'skills', SKILL_NAME);
    case 'codex':
      return user ? join(c.env.CODEX_HOME || join(c.home, '.codex'), 'skills', SKILL_NAME) : join(c.dir, '.agents', 'skills', SKILL_NAME);
    case 'gemini':
      return user ? join(c.home, '.gemini', 'skills', SKILL_NAME) : join(c.dir, '.gemini', 'skills', SKILL_NAME);
    case 'pi':
      return user ? join(c.env.PI_CODING_AGENT_DIR || join(c.home, '.pi', 'agent'), 'skills', SKILL_NAME) : join(c.dir, '.pi', 'skills', SKILL_NAME);
    case 'copilot':
      return user ? join(c.env.COPILOT_HOME || join(c.home, '.copilot'), 'skills', SKILL_NAME) : join(c.dir, '.github', 'skills', SKILL_NAME);
    case 'qwen':
      return user ? join(c.home, '.qwen', 'skills', SKILL_NAME) : join(c.dir, '.qwen', 'skills', SKILL_NAME);
    case 'opencode':
    case 'kilo':
      return user ? join(configHome(c), agent, 'skills', SKILL_NAME) : join(c.dir, `.${agent}`, 'skills', SKILL_NAME);
  }
}

/** The installed text: the shipped skill, plus (unless castellan is run from PATH) how to run this checkout's CLI. */
export function skillText(argv: readonly string[], source = SKILL_SOURCE): string {
  const text = readFileSync(source, 'utf8');
  if (argv.length === 1 && argv[0] === 'castellan') return text;
  const end = text.indexOf('\n---', 3);
  const cmd = argv.map(shellQuote).join(' ');
  const note = `\n\n> In this installation \`castellan\` may not be on PATH: wherever this skill says \`castellan\`, run \`${cmd}\`.\n`;
  return end === -1 ? text + note : text.slice(0, end + 4) + note + text.slice(end + 4);
}

export interface SkillInstall {
  agent: AgentName;
  path: string;
  action: 'created' | 'updated' | 'unchanged';
  backup?: string;
}

/** Writes SKILL.md for one agent; an existing different copy is backed up first. Installing twice changes nothing. */
export function installSkill(agent: AgentName, scope: 'user' | 'project', c: { home: string; env: NodeJS.ProcessEnv; dir: string; argv: readonly string[]; dryRun?: boolean; stamp: string }): SkillInstall {
  const path = join(skillDir(agent, scope, c), 'SKILL.md');
  const text = skillText(c.argv);
  const old = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
  if (old === text) return { agent, path, action: 'unchanged' };
  if (c.dryRun) return { agent, path, action: old === undefined ? 'created' : 'updated' };
  mkdirSync(dirname(path), { recursive: true });
  let backup: string | undefined;
  if (old !== undefined) {
    backup = `${path}.castellan-backup-${c.stamp}`;
    copyFileSync(path, backup);
  }
  writeFileSync(path, text);
  return { agent, path, action: old === undefined ? 'created' : 'updated', ...(backup ? { backup } : {}) };
}
