// `castellan trust`: allow (by content hash) the hooks of this project's castellan.toml / .castellan/local.toml; --list, --revoke.
import { existsSync, readFileSync } from 'node:fs';
import { agentDirs, agentFiles, parseAgentFile } from '../../config/agents.js';
import { findProjectRoot, layerPaths, parseConfigText } from '../../config/load.js';
import { stripControls } from '../../core/text.js';
import { describeHook } from '../../hooks/report.js';
import { canonicalPath, readTrust, revokeTrust, sha256, trustFile } from '../../config/trust.js';
import { table } from '../cli-util.js';
import { defineCommand, EXIT, type CliContext } from '../define-command.js';

function projectFiles(ctx: CliContext): string[] {
  const root = findProjectRoot(ctx.cwd, { home: ctx.paths.home });
  const p = layerPaths(root, ctx.paths.home);
  // The project's agent definitions too: each is trusted by its own content hash, like the config files.
  return [...[p.project, p.local].filter((f) => existsSync(f)), ...agentFiles(agentDirs(ctx.cwd, ctx.paths.home).project)];
}

function hookLines(file: string): string[] {
  if (file.endsWith('.md')) {
    try {
      const { agent } = parseAgentFile(readFileSync(file, 'utf8'), file, 'project');
      if (!agent) return [];
      const lines = [`    agent ${agent.name}: runs ${agent.command}`];
      for (const [type, entries] of Object.entries(agent.hooks)) for (const e of entries ?? []) lines.push(`    ${type}${e.pattern ? ` [${e.pattern}]` : ''}: ${e.type === 'command' ? e.command : e.type === 'deny' ? `deny${e.reason ? ` (${e.reason})` : ''}` : 'prompt text'}`);
      return lines.map((l) => stripControls(l));
    } catch {
      return [];
    }
  }
  try {
    const { value } = parseConfigText(readFileSync(file, 'utf8'), file);
    return (value.hooks?.hooks ?? []).map((h) => `    ${describeHook(h)}`);
  } catch {
    return [];
  }
}

function list(ctx: CliContext, json: boolean): number {
  const { data, problem } = readTrust(ctx.paths.trustFile);
  const rows = Object.entries(data.files).map(([path, e]) => {
    let status = 'missing';
    try {
      status = sha256(readFileSync(path)) === e.sha256 ? 'trusted' : 'changed';
    } catch {
      /* missing */
    }
    return { path, sha256: e.sha256, trusted_at: e.trusted_at ?? null, status };
  });
  if (json) ctx.out(JSON.stringify({ trust_file: ctx.paths.trustFile, files: rows, ...(problem ? { problem } : {}) }, null, 2));
  else {
    if (problem) ctx.err(`castellan trust: ${problem}`);
    if (!rows.length) ctx.out('no files are trusted');
    else ctx.out(table([['STATUS', 'SHA256', 'FILE'], ...rows.map((r) => [r.status, r.sha256.slice(0, 12), r.path])]));
  }
  return EXIT.ok;
}

export default defineCommand({
  name: 'trust',
  usage: 'castellan trust [FILE...] | castellan trust --list | castellan trust --revoke [FILE...]',
  summary: 'Let a repository config file run hooks and choose programs (shell, keys, agents), and its agent definitions start: records its sha256 for this repository; a changed file needs trusting again.',
  details: [
    'Hooks from castellan.toml and .castellan/local.toml (they live in the repository, which you may just have cloned)',
    'stay inert until you trust the file, and so do its settings that run or choose a program ([session], [keys], [agents]);',
    'until then only its looks ([ui]) apply, and its governance and limits may only tighten yours. Trust binds to the file',
    'where it is and to this repository: a symlink to a file trusted elsewhere is not trusted here. Without FILE: those two files and .castellan/agents/*.md (agent definitions, which',
    'cannot start until trusted) of the project found from here. The trust store',
    'is a 0600 file in your state directory. `castellan config check` says which hooks are inert and why.',
  ].join('\n'),
  options: { list: { type: 'boolean' }, revoke: { type: 'boolean' }, json: { type: 'boolean' } },
  positionals: true,
  run: async (ctx, { values, positionals }) => {
    if (values.list) return list(ctx, !!values.json);
    const files = positionals.length ? positionals.map((f) => canonicalPath(`${f.startsWith('/') ? '' : `${ctx.cwd}/`}${f}`)) : projectFiles(ctx);
    if (!files.length) {
      ctx.err('castellan trust: no castellan.toml, .castellan/local.toml or .castellan/agents/*.md found from here (give a FILE)');
      return EXIT.error;
    }
    const results: Array<Record<string, unknown>> = [];
    let failed = false;
    for (const f of files) {
      if (values.revoke) {
        const had = revokeTrust(ctx.paths.trustFile, f);
        results.push({ path: f, revoked: had });
        if (!values.json) ctx.out(had ? `revoked ${f}` : `${f} was not trusted`);
        continue;
      }
      try {
        const r = trustFile(ctx.paths.trustFile, f);
        results.push({ path: r.path, sha256: r.sha256, trusted: true });
        if (!values.json) {
          const hooks = hookLines(r.path);
          const what = r.path.endsWith('.md') ? 'this agent may now start' : 'its hooks may now run and its settings apply';
          ctx.out(`trusted ${r.path} (sha256 ${r.sha256.slice(0, 12)})${hooks.length ? `; ${what}:\n${hooks.join('\n')}` : ''}`);
        }
      } catch (e) {
        failed = true;
        results.push({ path: f, error: (e as Error).message });
        ctx.err(`castellan trust: ${f}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
      }
    }
    if (values.json) ctx.out(JSON.stringify({ trust_file: ctx.paths.trustFile, files: results }, null, 2));
    return failed ? EXIT.error : EXIT.ok;
  },
});
