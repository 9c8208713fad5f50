// Everything the bench starts is registered here, so servers, clients and tmux sessions are ended even on error or Ctrl-C.
import { spawnSync } from 'node:child_process';

export interface Resource {
  name: string;
  /** Orderly shutdown. */
  close(): Promise<void>;
  /** Last resort from the 'exit' handler: synchronous kills only. */
  killSync(): void;
}

const live = new Set<Resource>();
let installed = false;
let closing: Promise<void> | undefined;
let aborted = false;

export function track(r: Resource): () => void {
  install();
  if (aborted) {
    // Interrupted: whatever is being started now is ended at once.
    r.killSync();
    throw new Error('interrupted');
  }
  live.add(r);
  return () => live.delete(r);
}

/** What is registered now: a section that fails closes only what it added (`closeAllBut`), so the shared tmp dir stays. */
export function registered(): ReadonlySet<Resource> {
  return new Set(live);
}

/** Closes everything registered since `keep` was taken, newest first. */
export async function closeAllBut(keep: ReadonlySet<Resource>): Promise<void> {
  for (const r of [...live].reverse()) {
    if (keep.has(r)) continue;
    try {
      await r.close();
    } catch {
      r.killSync();
    }
    live.delete(r);
  }
}

export async function closeAll(): Promise<void> {
  closing ??= (async () => {
    for (const r of [...live].reverse()) {
      try {
        await r.close();
      } catch {
        r.killSync();
      }
      live.delete(r);
    }
  })();
  await closing;
  closing = undefined;
}

function install(): void {
  if (installed) return;
  installed = true;
  const onSignal = (sig: NodeJS.Signals) => {
    if (aborted) return;
    aborted = true;
    process.stderr.write(`\n[bench] ${sig}: cleaning up...\n`);
    const hard = setTimeout(() => process.exit(130), 8000);
    closeAll().finally(() => {
      clearTimeout(hard);
      process.exit(130);
    });
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
  process.on('exit', () => {
    for (const r of live) {
      try {
        r.killSync();
      } catch {
        /* best effort */
      }
    }
  });
}

export function tmuxKillServerSync(socketName: string): void {
  spawnSync('tmux', ['-L', socketName, 'kill-server'], { stdio: 'ignore', timeout: 3000 });
}
