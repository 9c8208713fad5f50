// castellan vs tmux 3.3a, side by side in one run: throughput, keystroke echo, frame cost, idle CPU, memory.
//
//   npm run bench                                    # everything (about 3 minutes)
//   node --import tsx bench/run.ts --quick           # fewer runs/samples, 20 MB file (about 1 minute)
//   node --import tsx bench/run.ts --only throughput,echo
//   options: --runs N --samples N --idle-seconds S --flood-seconds S --flood-rate MB/s --file-mb N
//            --cpu-prof (castellan server/client write .cpuprofile files to bench/data/prof/)
//            --nice N (run the bench and everything it starts at niceness N, e.g. -10 on a shared, busy machine)
//            --no-snapshot (run the repo's dist/ directly instead of a copy) --out FILE
//   npm run bench -- --scale [--soak-hours 8]        # issue 34's rows at 64 panes (+ the simulated day, alone: --soak-hours 8); not in a full run
//   node --import tsx bench/run.ts --readme          # rewrite the README's speed table from bench/results/latest.json (runs nothing)
//
// Prints every row (castellan and tmux side by side, ratio, target, met), then the headline rows (issue 14's table),
// and writes raw numbers to bench/results/latest.json (a full run) or bench/results/partial.json (--only, unless --out).
// Test data is generated into bench/data/ (gitignored).
import { execFileSync } from 'node:child_process';
import { cpus, loadavg, setPriority } from 'node:os';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { closeAll, closeAllBut, registered, track } from './lib/cleanup.js';
import { ansiFile } from './lib/data.js';
import { cleanEnv, makeRoot, makeTmp, removeTmp, type BenchEnv, type Options } from './lib/env.js';
import { headlineTable, readmeTable, replaceReadmeTable, table, type Row, type SectionResult } from './lib/report.js';
import { log, MiB, round } from './lib/util.js';
import { api } from './sections/api.js';
import { cli } from './sections/cli.js';
import { echo } from './sections/echo.js';
import { exit } from './sections/exit.js';
import { flood } from './sections/flood.js';
import { footprint } from './sections/footprint.js';
import { idle } from './sections/idle.js';
import { memory } from './sections/memory.js';
import { memoryDense } from './sections/memory-dense.js';
import { machines } from './sections/machines.js';
import { micro } from './sections/micro.js';
import { nested } from './sections/nested.js';
import { platform } from './sections/platform.js';
import { restore } from './sections/restore.js';
import { scale, soak } from './sections/scale.js';
import { sessions } from './sections/sessions.js';
import { throughput } from './sections/throughput.js';
import { web } from './sections/web.js';

const BENCH = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(BENCH, '..');

const SECTIONS: Array<[string, (b: BenchEnv) => Promise<SectionResult>]> = [
  ['throughput', throughput],
  ['nested', nested],
  ['echo', echo],
  ['exit', exit],
  ['flood', flood],
  ['micro', micro],
  ['idle', idle],
  ['memory', memory],
  ['memdense', memoryDense],
  ['api', api],
  ['restore', restore],
  ['cli', cli],
  ['footprint', footprint],
  ['sessions', sessions],
  ['platform', platform],
  ['machines', machines],
  ['web', web],
  ['scale', scale],
  ['soak', soak],
];
/** Sections a full run leaves out (several minutes each): run them by name, or with their flag (--scale). */
const OPT_IN = new Set(['scale', 'soak']);
const ALIASES: Record<string, string[]> = { frame: ['flood', 'micro'], mem: ['memory'], latency: ['echo', 'exit'], cpu: ['flood', 'idle'], lean: ['footprint'] };

function parseOptions(argv: string[]): Options {
  const quick = argv.includes('--quick');
  const o: Options = {
    quick,
    only: undefined,
    runs: quick ? 2 : 5,
    samples: quick ? 60 : 200,
    idleSeconds: quick ? 3 : 8,
    floodSeconds: quick ? 2 : 4,
    floodRateMiB: 4,
    fileMiB: quick ? 20 : 50,
    cpuProf: false,
    nice: undefined,
    snapshot: true,
    out: join(BENCH, 'results', 'latest.json'),
    readme: false,
  };
  let outGiven = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const num = () => {
      const v = Number(argv[++i]);
      if (!Number.isFinite(v) || v <= 0) throw new Error(`${a} needs a positive number`);
      return v;
    };
    if (a === '--quick') continue;
    else if (a === '--scale') o.only = new Set([...(o.only ?? []), 'scale']);
    else if (a === '--soak-hours') {
      o.soakHours = num();
      o.only = new Set([...(o.only ?? []), 'soak']);
    }
    else if (a === '--only') {
      const names = (argv[++i] ?? '').split(',').map((s) => s.trim()).filter(Boolean).flatMap((n) => ALIASES[n] ?? [n]);
      for (const n of names) if (!SECTIONS.some(([s]) => s === n)) throw new Error(`unknown section "${n}" (sections: ${SECTIONS.map(([s]) => s).join(', ')}; aliases: ${Object.keys(ALIASES).join(', ')})`);
      o.only = new Set(names);
    } else if (a === '--runs') o.runs = Math.round(num());
    else if (a === '--samples') o.samples = Math.round(num());
    else if (a === '--idle-seconds') o.idleSeconds = num();
    else if (a === '--flood-seconds') o.floodSeconds = num();
    else if (a === '--flood-rate') o.floodRateMiB = num();
    else if (a === '--file-mb') o.fileMiB = num();
    else if (a === '--cpu-prof') o.cpuProf = true;
    else if (a === '--nice') {
      o.nice = Number(argv[++i]);
      if (!Number.isInteger(o.nice) || o.nice < -20 || o.nice > 19) throw new Error('--nice needs a whole number from -20 to 19');
    }
    else if (a === '--no-snapshot') o.snapshot = false;
    else if (a === '--out') {
      o.out = resolve(argv[++i]);
      outGiven = true;
    } else if (a === '--readme') o.readme = true;
    else if (a === '-h' || a === '--help') {
      process.stdout.write(
        'usage: node --import tsx bench/run.ts [--quick] [--only ' + SECTIONS.map(([s]) => s).join(',') + '] [--runs N] [--samples N]\n' +
          '       [--scale [--soak-hours H]] [--idle-seconds S] [--flood-seconds S] [--flood-rate MB/s] [--file-mb N] [--cpu-prof] [--nice N] [--no-snapshot] [--out FILE]\n',
      );
      process.exit(0);
    } else throw new Error(`unknown option ${a}`);
  }
  // latest.json is the last full run: the README's table is generated from it.
  if (o.only && !outGiven) o.out = join(BENCH, 'results', 'partial.json');
  return o;
}

/** --readme reads latest.json unless --out names another file. */
const outGivenPath = (o: Options): string => (o.out.endsWith('partial.json') ? join(BENCH, 'results', 'latest.json') : o.out);

function sh(cmd: string, args: string[]): string {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', cwd: REPO, stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

/** Rewrites the README's speed table from a results file. */
function writeReadme(results: string): number {
  const r = JSON.parse(readFileSync(results, 'utf8')) as { meta: Parameters<typeof readmeTable>[1]; rows: Row[] };
  const file = join(REPO, 'README.md');
  writeFileSync(file, replaceReadmeTable(readFileSync(file, 'utf8'), readmeTable(r.rows, r.meta)));
  process.stdout.write(`README.md speed table rewritten from ${results}\n`);
  return 0;
}

async function main(): Promise<number> {
  const opts = parseOptions(process.argv.slice(2));
  if (opts.readme) return writeReadme(outGivenPath(opts));
  const tStart = Date.now();
  if (opts.nice !== undefined) {
    // Children (servers, clients, tmux, pane programs) inherit it.
    try {
      setPriority(opts.nice);
    } catch (e) {
      log(`warning: cannot set niceness ${opts.nice}: ${(e as Error).message}`);
      opts.nice = undefined;
    }
  }
  const tmp = makeTmp();
  // Registered first, so it is removed last (after every server using it stopped), on Ctrl-C too.
  track({ name: 'tmp', close: async () => removeTmp(tmp), killSync: () => removeTmp(tmp) });
  let id = 0;
  const dataDir = join(BENCH, 'data');
  const profDir = join(dataDir, 'prof');
  if (opts.cpuProf) mkdirSync(profDir, { recursive: true });
  const file = ansiFile(dataDir, opts.fileMiB * MiB);
  const b: BenchEnv = {
    opts,
    repo: REPO,
    root: makeRoot(REPO, tmp, opts.snapshot),
    tmp,
    dataDir,
    profDir,
    file,
    fileBytes: statSync(file).size,
    env: cleanEnv(join(tmp, 'home')),
    nextId: () => ++id,
  };
  const meta = {
    date: new Date().toISOString(),
    git: sh('git', ['rev-parse', '--short', 'HEAD']) + (sh('git', ['status', '--porcelain', '--', 'src']) ? ' (src modified)' : ''),
    node: process.version,
    tmux: sh('tmux', ['-V']),
    cpu: cpus()[0]?.model,
    cores: cpus().length,
    loadavgAtStart: loadavg().map((x) => round(x, 2)),
    file: { path: file, bytes: b.fileBytes },
    options: { ...opts, only: opts.only ? [...opts.only] : undefined },
  };
  log(`castellan ${meta.git}, ${meta.tmux}, node ${meta.node}, ${meta.cores} x ${meta.cpu}, load ${meta.loadavgAtStart.join(' ')}`);
  if (meta.loadavgAtStart[0] > meta.cores * 0.5) log(`warning: the machine is busy (load ${meta.loadavgAtStart[0]}); numbers will be noisy`);
  const rows: Row[] = [];
  const raw: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  try {
    for (const [name, fn] of SECTIONS) {
      if (opts.only ? !opts.only.has(name) : OPT_IN.has(name)) continue;
      const t0 = Date.now();
      const load0 = loadavg()[0];
      const own0 = process.cpuUsage();
      const before = registered();
      log(`--- ${name} (load ${round(load0, 2)})`);
      try {
        const r = await fn(b);
        rows.push(...r.rows);
        const own = process.cpuUsage(own0);
        // The harness shares the machine: its own CPU and the load average say how quiet the run was.
        raw[name] = { ...(r.raw as object), _loadavg1: [round(load0, 2), round(loadavg()[0], 2)], _harnessCpuPct: round(((own.user + own.system) / 1000 / (Date.now() - t0)) * 100, 1) };
      } catch (e) {
        errors[name] = (e as Error).stack ?? String(e);
        log(`${name} FAILED: ${(e as Error).message}`);
        // Only what the section started: the tmp dir (with the castellan copy) is for the sections after it.
        await closeAllBut(before);
      }
      log(`${name} took ${round((Date.now() - t0) / 1000, 1)} s`);
    }
  } finally {
    await closeAll();
  }
  const seconds = (Date.now() - tStart) / 1000;
  mkdirSync(dirname(opts.out), { recursive: true });
  writeFileSync(opts.out, JSON.stringify({ meta: { ...meta, seconds: round(seconds, 1) }, rows, sections: raw, errors }, null, 1) + '\n');
  process.stdout.write(`\ncastellan vs tmux — ${meta.date}, ${meta.cores} cores, ${meta.node}, ${meta.tmux}, file ${round(b.fileBytes / MiB, 1)} MB (1 MB = 2^20 B)\n\n`);
  process.stdout.write(table(rows) + '\n');
  const heads = headlineTable(rows);
  if (heads) process.stdout.write(`\nheadline (issue 14; load average ${loadavg().map((x) => round(x, 2)).join(' ')} now, ${meta.loadavgAtStart.join(' ')} at the start):\n\n${heads}\n`);
  if (rows.some((r) => r.metric.includes('contention-corrected'))) {
    process.stdout.write('\n* contention-corrected: wall time minus the time the server\'s main thread was runnable but waiting for a CPU\n  (other processes on the machine), from /proc/<pid>/task/<pid>/schedstat. An estimate for an otherwise idle machine.\n');
  }
  if (Object.keys(errors).length) process.stdout.write(`\nFAILED sections: ${Object.keys(errors).join(', ')} (details in ${opts.out})\n`);
  process.stdout.write(`\nraw results: ${opts.out}  (${round(seconds, 0)} s)\n`);
  return Object.keys(errors).length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  async (e) => {
    process.stderr.write(`bench: ${(e as Error).stack ?? e}\n`);
    await closeAll();
    process.exit(1);
  },
);
