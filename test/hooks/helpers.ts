// Test worlds for the governance engine: a temp HOME and project, hook scripts, options that collect events, a fake CLI context.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { CliContext } from '../../src/cli/define-command.js';
import type { GovEvent, GovernOptions } from '../../src/hooks/pipeline.js';
import { resolvePaths, type Paths } from '../../src/platform/paths.js';

export interface World {
  root: string;
  home: string;
  project: string;
  paths: Paths;
  env: Record<string, string>;
  /** Writes a file under the world (creating directories); returns its path. */
  write(rel: string, text: string, mode?: number): string;
  /** Writes an executable /bin/sh script; returns its path. */
  script(name: string, body: string): string;
  /** Governance options for in-process calls: offline (no server), events collected into `events`. */
  opts(extra?: Partial<GovernOptions>): GovernOptions & { events: GovEvent[] };
  auditLines(): Array<Record<string, unknown>>;
  cleanup(): void;
}

export function makeWorld(): World {
  const root = mkdtempSync(join(tmpdir(), 'cgov-'));
  const home = join(root, 'home');
  const project = join(root, 'proj');
  mkdirSync(home, { recursive: true });
  mkdirSync(join(project, '.git'), { recursive: true });
  const env: Record<string, string> = { HOME: home, PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', TERM: 'dumb' };
  const paths = resolvePaths({ env });
  const w: World = {
    root,
    home,
    project,
    paths,
    env,
    write(rel, text, mode) {
      const p = rel.startsWith('/') ? rel : join(root, rel);
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, text, mode !== undefined ? { mode } : undefined);
      return p;
    },
    script(name, body) {
      const p = w.write(join('scripts', name), `#!/bin/sh\n${body}\n`);
      chmodSync(p, 0o755);
      return p;
    },
    opts(extra = {}) {
      const events: GovEvent[] = [];
      return { env, paths, link: null, onEvent: (e) => events.push(e), events, ...extra };
    },
    auditLines() {
      try {
        return readFileSync(paths.auditLog, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
      } catch {
        return [];
      }
    },
    cleanup() {
      rmSync(root, { recursive: true, force: true });
    },
  };
  return w;
}

/** A TOML `[[hooks.hooks]]` entry. */
export function hookToml(h: { event: string; command: string; matcher?: string; timeout_ms?: number; id?: string }): string {
  const lines = ['[[hooks.hooks]]', `event = ${JSON.stringify(h.event)}`, `command = ${JSON.stringify(h.command)}`];
  if (h.matcher !== undefined) lines.push(`matcher = ${JSON.stringify(h.matcher)}`);
  if (h.timeout_ms !== undefined) lines.push(`timeout_ms = ${h.timeout_ms}`);
  if (h.id !== undefined) lines.push(`id = ${JSON.stringify(h.id)}`);
  return lines.join('\n') + '\n';
}

export interface FakeCtx extends CliContext {
  stdout: string[];
  stderr: string[];
}

export function fakeCtx(w: World, extra: { cwd?: string; env?: Record<string, string> } = {}): FakeCtx {
  const env = { ...w.env, ...extra.env };
  const paths = resolvePaths({ env });
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    paths,
    env,
    cwd: extra.cwd ?? w.project,
    out: (s) => stdout.push(s),
    err: (s) => stderr.push(s),
    connect: async () => {
      const { ApiClient } = await import('../../src/api/client.js');
      return ApiClient.connect(paths.socket);
    },
    version: 'test',
    stdout,
    stderr,
  };
}

/** Is a process alive (a zombie counts as gone)? */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

export function readJson(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path, 'utf8'));
}
