// `castellan` with no command: start the server if needed, attach this terminal to it, restore the terminal on exit.
import { ApiClient } from '../api/client.js';
import type { Paths } from '../platform/paths.js';
import { ClientApp, type ClientConfig } from './app.js';
import { ENTER, LEAVE } from './terminal.js';

export interface AttachOpts {
  paths: Paths;
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  window?: string;
}

/** Attaches until detached or the server goes away; resolves with the process exit code. */
export async function attach(o: AttachOpts): Promise<number> {
  const { stdin, stdout } = o;
  if (!stdin.isTTY || !stdout.isTTY) {
    process.stderr.write('castellan: attaching needs a terminal (stdin and stdout must be a tty)\n');
    return 2;
  }
  const api = await ApiClient.connect(o.paths.socket);
  const size = () => ({ cols: stdout.columns || 80, rows: stdout.rows || 24 });
  let finished = false;
  let resolveExit!: (code: number) => void;
  const done = new Promise<number>((r) => (resolveExit = r));
  const restore = () => {
    try {
      stdout.write(LEAVE);
    } catch {
      /* the terminal may be gone */
    }
    try {
      stdin.setRawMode(false);
    } catch {
      /* not a tty any more */
    }
    stdin.pause();
  };
  const exit = (message: string, code: number) => {
    if (finished) return;
    finished = true;
    app?.dispose();
    restore();
    if (message) stdout.write(message + '\n');
    api.close();
    resolveExit(code);
  };
  let app: ClientApp | undefined;
  // Buffer frames until the app exists (the first frame can arrive with the attach reply).
  const early: Array<Record<string, unknown>> = [];
  const offEarly = api.onMessage((m) => early.push(m));
  let cfg: ClientConfig;
  try {
    cfg = await api.request<ClientConfig>('client.attach', { ...size(), term: process.env.TERM, ...(o.window ? { window_id: o.window } : {}) }, { timeoutMs: 10_000 });
  } catch (e) {
    api.close();
    throw e;
  }
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  stdout.write(ENTER);
  app = new ClientApp(api, cfg, { write: (s) => stdout.write(s), size, exit });
  offEarly();
  for (const m of early) app.onMessage(m);
  stdin.on('data', (d: string) => app!.input(d));
  const onResize = () => {
    app!.resized();
  };
  stdout.on('resize', onResize);
  api.onClosed(() => exit('[lost server]', finished ? 0 : 1));
  // Closing the terminal detaches: the server and its panes stay.
  const onHup = () => exit('', 0);
  process.once('SIGHUP', onHup);
  process.once('SIGTERM', () => exit('[terminated]', 0));
  const code = await done;
  stdout.off('resize', onResize);
  process.off('SIGHUP', onHup);
  return code;
}
