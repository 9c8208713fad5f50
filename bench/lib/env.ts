// The bench's world: a snapshot of the built castellan, a temp HOME, a clean environment, the options.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Options {
  quick: boolean;
  only: Set<string> | undefined;
  runs: number;
  samples: number;
  idleSeconds: number;
  floodSeconds: number;
  floodRateMiB: number;
  fileMiB: number;
  cpuProf: boolean;
  /** Niceness for the bench and everything it starts (negative = ahead of other load; needs CAP_SYS_NICE). */
  nice: number | undefined;
  snapshot: boolean;
  out: string;
  /** The scale section's simulated day, in hours (0 or absent: none). */
  soakHours?: number;
  /** Only rewrite the README's speed table from the results file. */
  readme: boolean;
}

export interface BenchEnv {
  opts: Options;
  repo: string;
  /** Directory holding bin/castellan.js and dist/ that the bench runs (a snapshot unless --no-snapshot). */
  root: string;
  tmp: string;
  dataDir: string;
  profDir: string;
  file: string;
  fileBytes: number;
  /** Environment for every server, client and pane program (both castellan and tmux). */
  env: NodeJS.ProcessEnv;
  nextId(): number;
}

/**
 * The BenchEnv a probe script (echo-trace, mem-probe, client-smaps, ...) runs in: bench/run.ts builds its own from the
 * parsed options; a script names only what it uses. Defaults: the checkout itself as root, data and profiles in `tmp`,
 * no data file, a clean environment with HOME in `tmp`.
 */
export function scriptEnv(o: { repo: string; tmp: string; root?: string; opts?: Partial<Options>; env?: NodeJS.ProcessEnv; dataDir?: string; profDir?: string; file?: string }): BenchEnv {
  let id = 0;
  return {
    opts: (o.opts ?? {}) as Options,
    repo: o.repo,
    root: o.root ?? o.repo,
    tmp: o.tmp,
    dataDir: o.dataDir ?? o.tmp,
    profDir: o.profDir ?? o.tmp,
    file: o.file ?? '',
    fileBytes: 0,
    env: o.env ?? cleanEnv(join(o.tmp, 'home')),
    nextId: () => ++id,
  };
}

/** Copies the built castellan aside, so another engineer rebuilding dist/ mid-run cannot change what is measured. */
export function makeRoot(repo: string, tmp: string, snapshot: boolean): string {
  if (!existsSync(join(repo, 'dist', 'cli', 'main.js'))) throw new Error(`castellan is not built: run npm run build in ${repo}`);
  if (!snapshot) return repo;
  const root = join(tmp, 'castellan');
  mkdirSync(root, { recursive: true });
  // What a package ships (package.json "files"), as an install has it. The agents' rule files live in src/detect/rules:
  // a copy without them identified no agent, and the scale bench's 31-agent badge read generic screens (2.3 s).
  const files = (JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { files?: string[] }).files ?? [];
  for (const d of [...files, 'package.json']) {
    if (existsSync(join(repo, d))) cpSync(join(repo, d), join(root, d), { recursive: true });
  }
  symlinkSync(join(repo, 'node_modules'), join(root, 'node_modules'), 'dir');
  return root;
}

export function makeTmp(): string {
  return mkdtempSync(join(tmpdir(), 'cbench-'));
}

export function removeTmp(tmp: string): void {
  rmSync(tmp, { recursive: true, force: true });
}

export function cleanEnv(home: string): NodeJS.ProcessEnv {
  const keep = ['PATH', 'USER', 'LOGNAME', 'TZ', 'CASTELLAN_SERVER_YOUNG_GEN', 'CASTELLAN_CLIENT_OPTIMIZER', 'CASTELLAN_CLIENT_YOUNG_GEN'];
  const env: NodeJS.ProcessEnv = {};
  for (const k of keep) if (process.env[k]) env[k] = process.env[k];
  Object.assign(env, {
    HOME: home,
    TERM: 'xterm-256color',
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    SHELL: '/bin/bash',
    NODE_ENV: 'production',
    XDG_STATE_HOME: join(home, '.local', 'state'),
    XDG_CONFIG_HOME: join(home, '.config'),
  });
  return env;
}
