// Finds and reads the three config layers, validates each with diagnostics (file + line), and merges them.
import { createHash } from 'node:crypto';
import { stripControlsKeepLines } from '../core/text.js';
import { readFileBounded } from '../platform/read-file.js';
import { findProjectRoot, layerPaths, type LayerName } from './layer-paths.js';
import { mergeLayers } from './layers.js';
import { DEFAULT_CONFIG, validateConfig, type Config, type PartialConfig } from './schema.js';
import { parseTomlRecovering } from './toml.js';
import { trustStatus, untrustedSettings, type TrustData, type TrustStatus } from './trust.js';

export interface Diagnostic {
  severity: 'error' | 'warning';
  file: string;
  line?: number;
  path?: string;
  message: string;
}

export { findProjectRoot, layerPaths, type LayerName };
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
  /**
   * Per-layer validated (partial) values as written, before merging and before trust is applied, with the
   * file's trust (the user's own file is always trusted): hooks and governance apply their own trust rules.
   */
  layers: Array<{ layer: LayerName; path: string; value: PartialConfig; trust: TrustStatus }>;
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

const MAX_DIAGNOSTICS = 60;

/** Parses and validates one file's text; never throws, whatever the text. */
export function parseConfigText(text: string, file: string): { value: PartialConfig; diagnostics: Diagnostic[] } {
  const { value, diagnostics } = parseLocated(text, file);
  return { value, diagnostics };
}

/** parseConfigText, plus where each key is, for diagnostics added later (settings trust ignores). */
function parseLocated(text: string, file: string): { value: PartialConfig; diagnostics: Diagnostic[]; locate(path: ReadonlyArray<string | number>): number | undefined } {
  const nowhere = () => undefined;
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
    // A file with hundreds of problems is not a config someone wrote by hand: the first ones say enough.
    if (diagnostics.length > MAX_DIAGNOSTICS) {
      const rest = diagnostics.splice(MAX_DIAGNOSTICS);
      diagnostics.push({ severity: 'warning', file, line: rest[0].line, message: `${rest.length} more problems from here on are not listed` });
    }
    return { value, diagnostics, locate: toml.locate };
  } catch (e) {
    // Defensive only: the parser and validator are built not to throw, but a config must never crash us.
    return { value: {}, diagnostics: [{ severity: 'error', file, message: `could not read config: ${String(e)}` }], locate: nowhere };
  }
}

/** A config file is a few KB; past this it is not one, and reading or recovering it would only cost time. */
export const MAX_CONFIG_BYTES = 256 * 1024;

function readLayer(layer: LayerName, path: string): { info: ConfigFileInfo; error?: Diagnostic } {
  const r = readFileBounded(path, MAX_CONFIG_BYTES);
  if (!r.ok) {
    if (r.code === 'ENOENT' || r.code === 'ENOTDIR') return { info: { layer, path, exists: false } };
    return { info: { layer, path, exists: true }, error: { severity: 'error', file: path, message: `cannot read config file: ${r.message}; file ignored` } };
  }
  const sha256 = createHash('sha256').update(r.buf).digest('hex');
  // A NUL byte never belongs in TOML: this is a binary file, and parsing it would only produce noise.
  if (r.buf.includes(0)) return { info: { layer, path, exists: true, sha256 }, error: { severity: 'error', file: path, message: 'is a binary file (it holds NUL bytes), not TOML; file ignored' } };
  return { info: { layer, path, exists: true, text: r.buf.toString('utf8'), sha256 } };
}

/** Layers that live in the repository (you may just have cloned it), so they need `castellan trust` to run or choose programs. */
export const NEEDS_TRUST: ReadonlySet<LayerName> = new Set<LayerName>(['project', 'local']);

/**
 * Loads user, project and local layers (lowest precedence first) and merges them over the defaults. A repository
 * layer that `trust` does not vouch for contributes only what an untrusted file may set (config/trust.ts); each
 * setting it could not apply is a warning. Without `trust`, no repository file is trusted.
 */
export function loadConfig(opts: { cwd: string; home: string; trust?: TrustData; files?: Partial<Record<LayerName, string>> }): LoadedConfig {
  const projectRoot = findProjectRoot(opts.cwd, { home: opts.home });
  const paths = { ...layerPaths(projectRoot, opts.home), ...opts.files };
  const trust = opts.trust ?? { version: 1 as const, files: {} };
  const diagnostics: Diagnostic[] = [];
  const files: ConfigFileInfo[] = [];
  const layers: LoadedConfig['layers'] = [];
  const applied: PartialConfig[] = [];
  for (const layer of LAYER_NAMES) {
    const path = paths[layer];
    const { info, error } = readLayer(layer, path);
    files.push(info);
    if (error) diagnostics.push(error);
    if (info.text === undefined) continue;
    const parsed = parseLocated(info.text, path);
    diagnostics.push(...parsed.diagnostics);
    const status: TrustStatus = NEEDS_TRUST.has(layer) ? trustStatus(trust, path, info.sha256, projectRoot) : 'trusted';
    layers.push({ layer, path, value: parsed.value, trust: status });
    if (status === 'trusted') {
      applied.push(parsed.value);
      continue;
    }
    const inForce = mergeLayers(applied, DEFAULT_CONFIG);
    const gated = untrustedSettings(parsed.value, path, status, inForce);
    applied.push(gated.value);
    for (const i of gated.ignored) {
      const line = parsed.locate(i.path);
      diagnostics.push({ severity: 'warning', file: path, ...(line !== undefined ? { line } : {}), path: formatPath(i.path), message: i.message });
    }
  }
  return { config: mergeLayers(applied), diagnostics, files, projectRoot, layers };
}
