#!/usr/bin/env node
// For scripts/badge-lab.ts: keeps in an agent's lab-written hook config only the events castellan's installer registers.
//   badge-prune-hooks.mjs AGENT HOME EVENT...   (claude ~/.claude/settings.json, gemini ~/.gemini/settings.json,
//   codex ~/.codex/hooks.json, copilot ~/.copilot/settings.json, qwen ~/.qwen/settings.json; pi, opencode and Kilo have
//   no hook file: their extension / plugin runs the hook command, which filters itself)
// The lab registers every event an agent has, and Claude, Codex and Gemini await each hook process: a shell per
// streamed chunk (Gemini's AfterModel) slows the agent itself, which castellan's own install never does.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [agent, home, ...events] = process.argv.slice(2);
const file = { claude: '.claude/settings.json', gemini: '.gemini/settings.json', codex: '.codex/hooks.json', copilot: '.copilot/settings.json', qwen: '.qwen/settings.json' }[agent];
if (file && home && existsSync(join(home, file))) {
  const path = join(home, file);
  const cfg = JSON.parse(readFileSync(path, 'utf8'));
  if (cfg.hooks && typeof cfg.hooks === 'object') {
    for (const e of Object.keys(cfg.hooks)) if (!events.includes(e)) delete cfg.hooks[e];
    writeFileSync(path, JSON.stringify(cfg, null, 2) + '\n');
  }
}
