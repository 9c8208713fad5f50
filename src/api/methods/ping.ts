// ping: is the server alive, which version and protocol does it speak.
import { z } from 'zod';
import { defineMethod } from '../define-method.js';
import { PROTOCOL_VERSION } from '../protocol.js';

export default defineMethod({
  name: 'ping',
  description: 'Check the server is alive; returns its version, protocol, session name, pid, uptime, and how many clients, event subscribers (waits included) and panes it has.',
  params: z.object({}).strict().optional(),
  result: z.object({
    pong: z.literal(true),
    version: z.string(),
    protocol: z.number(),
    session: z.string(),
    pid: z.number(),
    uptime_ms: z.number(),
    socket: z.string(),
    clients: z.number(),
    subscribers: z.number(),
    panes: z.number(),
  }),
  handler: ({ session }) => ({
    pong: true as const,
    version: session.version,
    protocol: PROTOCOL_VERSION,
    session: session.session,
    pid: process.pid,
    uptime_ms: Date.now() - session.startedAt,
    socket: session.socketPath,
    ...session.stats(),
  }),
});
