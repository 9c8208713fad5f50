// ping: is the server alive, which version and protocol does it speak (and, asked, what it holds: a soak's counters).
import { z } from 'zod';
import { platformReport } from '../../platform/proc/index.js';
import { defineMethod } from '../define-method.js';
import { PROTOCOL_VERSION } from '../protocol.js';

/** What the server process holds now: leak counters for soaks and `castellan` debugging (cheap: no heap walk). */
function resources() {
  const handles: Record<string, number> = {};
  for (const r of process.getActiveResourcesInfo()) handles[r] = (handles[r] ?? 0) + 1;
  let listeners = 0;
  for (const e of process.eventNames()) listeners += process.listenerCount(e);
  const m = process.memoryUsage();
  return { rss: m.rss, heap_used: m.heapUsed, external: m.external, handles, handles_total: Object.values(handles).reduce((a, b) => a + b, 0), process_listeners: listeners };
}

export default defineMethod({
  name: 'ping',
  description:
    'Check the server is alive; returns its version, protocol, session name, pid, uptime, and how many clients, event subscribers (waits included) and panes it has. `resources: true` adds what the process holds: memory (bytes), active handles and timers by kind (`process.getActiveResourcesInfo`) and listeners on `process`, the counters a soak test watches for leaks. `platform: true` adds how this server reads processes (its backend, whether the environment forced it, and what it lacks on this platform).',
  params: z.object({ resources: z.boolean().optional(), platform: z.boolean().optional() }).strict().optional(),
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
    resources: z
      .object({ rss: z.number(), heap_used: z.number(), external: z.number(), handles: z.record(z.string(), z.number()), handles_total: z.number(), process_listeners: z.number() })
      .optional(),
    platform: z
      .object({ platform: z.string(), arch: z.string(), backend: z.string(), how: z.string(), forced: z.string().optional(), lacks: z.array(z.string()) })
      .optional(),
  }),
  handler: ({ session }, p) => ({
    pong: true as const,
    version: session.version,
    protocol: PROTOCOL_VERSION,
    session: session.session,
    pid: process.pid,
    uptime_ms: Date.now() - session.startedAt,
    socket: session.socketPath,
    ...session.stats(),
    ...(p?.resources ? { resources: resources() } : {}),
    ...(p?.platform ? { platform: platformReport() } : {}),
  }),
});
