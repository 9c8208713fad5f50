// web.start: serve the web view from this server (loopback by default; see docs/web.md); returns where and how it runs.
import { z } from 'zod';
import { ApiError } from '../errors.js';
import { defineMethod } from '../define-method.js';

export const webStartParams = z
  .object({
    bind: z.string().min(1).max(253).optional(),
    port: z.number().int().min(0).max(65535).optional(),
    read_only: z.boolean().optional(),
    tls_cert: z.string().min(1).max(4096).refine((p) => p.startsWith('/') && !p.includes('\0'), 'must be an absolute path').optional(),
    tls_key: z.string().min(1).max(4096).refine((p) => p.startsWith('/') && !p.includes('\0'), 'must be an absolute path').optional(),
    allow_remote: z.boolean().optional(),
  })
  .strict();

export const webStatus = z.object({
  running: z.boolean(),
  url: z.string().optional(),
  bind: z.string().optional(),
  port: z.number().optional(),
  tls: z.boolean().optional(),
  sessions: z.number(),
  pending: z.number(),
  pages: z.number(),
  note: z.string().optional(),
});

/** The web room's refusals (plain HTTP off loopback, a port in use) as API errors. */
export function webError(e: unknown): unknown {
  if (e instanceof ApiError) return e;
  const err = e as NodeJS.ErrnoException;
  if (err?.name === 'WebConfigError' || err?.constructor?.name === 'WebConfigError') return new ApiError('not_allowed', err.message);
  if (err?.code === 'EADDRINUSE') return new ApiError('busy', `the web port is in use: ${err.message}`);
  if (err?.code === 'EACCES' || err?.code === 'EADDRNOTAVAIL' || err?.code === 'ENOENT') return new ApiError('not_allowed', err.message);
  return e;
}

export default defineMethod({
  name: 'web.start',
  description:
    'Start the web view (the phone page) in this server if it is not running, with `[web]` settings unless given here; returns its status and URL. Off loopback it needs `tls_cert`, `tls_key` and `allow_remote`. A page needs a pairing (web.pair).',
  params: webStartParams.optional(),
  result: webStatus,
  handler: async ({ session }, p = {}) => {
    if (!session.web) throw new ApiError('not_allowed', 'this server has no web view');
    try {
      return await session.web.start(p);
    } catch (e) {
      throw webError(e);
    }
  },
});
