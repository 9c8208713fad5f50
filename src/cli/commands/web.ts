// `castellan web`: serve the phone page from the running server; --pair prints a one-time URL and its QR code, --revoke signs every browser out.
import { isAbsolute, resolve } from 'node:path';
import { defineCommand, EXIT, UsageError } from '../define-command.js';

export default defineCommand({
  name: 'web',
  usage: 'castellan web [--pair [--read-only] [--no-qr]] [--revoke] [--stop] [--bind ADDR] [--port N] [--tls-cert FILE --tls-key FILE --allow-remote] [--json]',
  summary: 'Serve the web view (a phone page of the herd) from the running server; --pair signs a browser in',
  details: [
    'Starts the page in the running server (loopback, [web] port, 7681 by default) and prints its URL. Reach it from a',
    'phone through `ssh -L 7681:localhost:7681 HOST` or Tailscale; see docs/web.md. A browser needs a pairing:',
    '--pair prints a one-time URL (10 minutes, one browser) and its QR code; --read-only pairs a browser that can look',
    'but not answer, type or prompt. --revoke signs every browser out at once; --stop closes the port.',
    'Off loopback (--bind) the page is served only over TLS (--tls-cert, --tls-key) and with --allow-remote.',
  ].join('\n'),
  options: {
    pair: { type: 'boolean' },
    'read-only': { type: 'boolean' },
    'no-qr': { type: 'boolean' },
    revoke: { type: 'boolean' },
    stop: { type: 'boolean' },
    bind: { type: 'string' },
    port: { type: 'string' },
    'tls-cert': { type: 'string' },
    'tls-key': { type: 'string' },
    'allow-remote': { type: 'boolean' },
    json: { type: 'boolean' },
  },
  run: async (ctx, { values }) => {
    const modes = [values.pair, values.revoke, values.stop].filter(Boolean).length;
    if (modes > 1) throw new UsageError('give one of --pair, --revoke, --stop');
    if (values['read-only'] && !values.pair) throw new UsageError('--read-only goes with --pair');
    const port = values.port === undefined ? undefined : Number(values.port);
    if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) throw new UsageError('--port must be a whole number between 0 and 65535');
    const file = (v: unknown) => (typeof v === 'string' ? (isAbsolute(v) ? v : resolve(ctx.cwd, v)) : undefined);
    const start = {
      ...(typeof values.bind === 'string' ? { bind: values.bind } : {}),
      ...(port !== undefined ? { port } : {}),
      ...(values['tls-cert'] !== undefined ? { tls_cert: file(values['tls-cert']) } : {}),
      ...(values['tls-key'] !== undefined ? { tls_key: file(values['tls-key']) } : {}),
      ...(values['allow-remote'] ? { allow_remote: true } : {}),
    };
    const api = await ctx.connect();
    try {
      if (values.revoke) {
        const r = await api.request<{ sessions: number }>('web.revoke', {});
        ctx.out(values.json ? JSON.stringify(r) : `castellan: ${r.sessions} browser session(s) ended; unused pairing links voided`);
        return EXIT.ok;
      }
      if (values.stop) {
        const r = await api.request<{ stopped: boolean }>('web.stop', {});
        ctx.out(values.json ? JSON.stringify(r) : r.stopped ? 'castellan: web view stopped' : 'castellan: the web view was not running');
        return EXIT.ok;
      }
      if (values.pair) {
        const r = await api.request<{ url: string; expires: number; read_only: boolean }>('web.pair', { ...start, ...(values['read-only'] ? { read_only: true } : {}) });
        if (values.json) {
          ctx.out(JSON.stringify(r));
          return EXIT.ok;
        }
        if (!values['no-qr']) {
          const { qrText } = await import('../../web/index.js');
          ctx.out(await qrText(r.url));
        }
        ctx.out(r.url);
        ctx.out(`castellan: open it once, within 10 minutes, in the browser to sign in${r.read_only ? ' (read-only)' : ''}; castellan web --revoke signs every browser out`);
        return EXIT.ok;
      }
      const r = await api.request<{ url: string; sessions: number; note?: string }>('web.start', start);
      ctx.out(values.json ? JSON.stringify(r) : `castellan: web view at ${r.url} (${r.sessions} browser session(s)); castellan web --pair signs a browser in`);
      if (r.note && !values.json) ctx.err(`castellan: note: ${r.note}`);
      return EXIT.ok;
    } finally {
      api.close();
    }
  },
});
