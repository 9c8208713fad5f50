// Finds and reads the three config layers, validates each with diagnostics (file + line), and merges them.
import { createHash } from 'node:crypto';
import { stripControlsKeepLines } from '../core/text.js';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { mergeLayers } from './layers.js';
import { validateConfig, type Config, type PartialConfig } from './schema.js';
import { parseTomlRecovering } from './toml.js';

export interface Diagnostic {
  severity: 'error' | 'warning';
  file: string;
  line?: number;
  path?: string;
  message: string;
}

export type LayerName = 'user' | 'project' | 'local';
export const LAYER_NAMES: readonly LayerName[] = ['user', 'project', 'local'];

export interface ConfigFileInfo {
  layer: LayerName;
  path: string;
  exists: boolean;
  text?: string;
  sha256?: string;
}

export interface LoadedConfig {
  config: Config;
  diagnostics: Diagnostic[];
  files: ConfigFileInfo[];
  projectRoot: string;
  /** per-layer validated (partial) values, before merging — later code needs to know which layer a hook came from (project hooks need trust) */
  layers: Array<{ layer: LayerName; path: string; value: PartialConfig }>;
}

/** `castellan.toml:12: error: ui.theme: expected a string, got 3` — control characters removed. */
export function formatDiagnostic(d: Diagnostic): string {
  const where = d.line !== undefined ? `${d.file}:${d.line}` : d.file;
  const path = d.path ? `${d.path}: ` : '';
  return stripControlsKeepLines(`${where}: ${d.severity}: ${path}${d.message}`);
}

/** `hooks.hooks[2].event`, `keys."prefix |"`: the dotted path as a user would write it. */
export function formatPath(path: ReadonlyArray<string | number>): string {
  return path
    .map((seg, i) => {
      if (typeof seg === 'number') return `[${seg}]`;
      const part = /^[A-Za-z0-9_-]+$/.test(seg) ? seg : JSON.stringify(seg);
      return i === 0 ? part : `.${part}`;
    })
    .join('');
}

/** Parses and validates one file's text; never throws, whatever the text. */
export function parseConfigText(text: string, file: string): { value: PartialConfig; diagnostics: Diagnostic[] } {
  try {
    const toml = parseTomlRecovering(text);
    const diagnostics: Diagnostic[] = toml.errors.map((e) => ({ severity: 'error', file, line: e.line, message: e.message }));
    const { value, issues } = validateConfig(toml.value);
    for (const issue of issues) {
      const line = toml.locate(issue.path);
      diagnostics.push({
        severity: issue.severity,
        file,
        ...(line !== undefined ? { line } : {}),
        path: formatPath(issue.path),
        message: issue.message,
      });
    }
    diagnostics.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
    return { value, diagnostics };
  } catch (e) {
    // Defensive only: the parser and validator are built not to throw, but a config must never crash us.
    return { value: {}, diagnostics: [{ severity: 'error', file, message: `could not read config: ${String(e)}` }] };
  }
}

const isDir = (p: string) => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

/**
 * The nearest directory upward from `cwd` holding `castellan.toml`, a `.castellan/` directory or `.git`;
 * else `cwd`. The home directory's `.castellan/` is the user layer, not a project, so with `home` given
 * it does not count as a marker.
 */
export function findProjectRoot(cwd: string, opts: { home?: string } = {}): string {
  const start = resolve(cwd);
  const home = opts.home ? resolve(opts.home) : undefined;
  try {
    for (let dir = start; ; dir = dirname(dir)) {
      if (existsSync(join(dir, 'castellan.toml')) || existsSync(join(dir, '.git'))) return dir;
      if (dir !== home && isDir(join(dir, '.castellan'))) return dir;
      if (dirname(dir) === dir) return start;
    }
  } catch {
    return start;
  }
}

export function layerPaths(projectRoot: string, home: string): Record<LayerName, string> {
  return {
    user: join(home, '.castellan', 'config.toml'),
    project: join(projectRoot, 'castellan.toml'),
    local: join(projectRoot, '.castellan', 'local.toml'),
  };
}

function readLayer(layer: LayerName, path: string): { info: ConfigFileInfo; error?: Diagnostic } {
  try {
    const buf = readFileSync(path);
    return { info: { layer, path, exists: true, text: buf.toString('utf8'), sha256: createHash('sha256').update(buf).digest('hex') } };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { info: { layer, path, exists: false } };
    const why = code === 'EISDIR' ? 'is a directory' : code === 'EACCES' ? 'permission denied' : (e as Error).message;
    return { info: { layer, path, exists: true }, error: { severity: 'error', file: path, message: `cannot read config file: ${why}` } };
  }
}

/** Loads user, project and local layers (lowest precedence first) and merges them over the defaults. */
export function loadConfig(opts: { cwd: string; home: string; files?: Partial<Record<LayerName, string>> }): LoadedConfig {
  const projectRoot = findProjectRoot(opts.cwd, { home: opts.home });
  const paths = { ...layerPaths(projectRoot, opts.home), ...opts.files };
  const diagnostics: Diagnostic[] = [];
  const files: ConfigFileInfo[] = [];
  const layers: LoadedConfig['layers'] = [];
  for (const layer of LAYER_NAMES) {
    const path = paths[layer];
    const { info, error } = readLayer(layer, path);
    files.push(info);
    if (error) diagnostics.push(error);
    if (info.text === undefined) continue;
    const parsed = parseConfigText(info.text, path);
    diagnostics.push(...parsed.diagnostics);
    layers.push({ layer, path, value: parsed.value });
  }
  return { config: mergeLayers(layers.map((l) => l.value)), diagnostics, files, projectRoot, layers };
}
