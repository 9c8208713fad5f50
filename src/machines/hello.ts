// The bridge's first line: what it and the server behind it speak, so the two sides negotiate instead of matching versions.
import { z } from 'zod';

/** The bridge's own framing version (this file's hello, then the socket's lines untouched). */
export const BRIDGE_PROTOCOL = 1;
/** Socket protocols this side speaks (kept equal to src/api/protocol's PROTOCOL_VERSION by a test). */
export const SPOKEN_PROTOCOLS: readonly number[] = [1];
/** What this bridge offers: `rpc` (requests and replies), `push` (subscriptions, frames), `attach` (a full client). */
export const BRIDGE_CAPABILITIES = ['rpc', 'push', 'attach'] as const;

export const MAX_HELLO_BYTES = 16 * 1024;

export const helloSchema = z.object({
  castellan_bridge: z.object({
    protocol: z.number().int(),
    version: z.string().max(64),
    capabilities: z.array(z.string().max(32)).max(32),
  }),
  server: z.object({
    state: z.enum(['running', 'not_running', 'not_answering']),
    version: z.string().max(64).optional(),
    protocol: z.number().int().optional(),
    session: z.string().max(64).optional(),
    pid: z.number().int().optional(),
  }),
});
export type Hello = z.infer<typeof helloSchema>;

/** A hello line, or undefined for any other line (a login banner, a shell's noise). */
export function parseHello(line: string): Hello | undefined {
  if (!line.startsWith('{"castellan_bridge"') || line.length > MAX_HELLO_BYTES) return undefined;
  try {
    const r = helloSchema.safeParse(JSON.parse(line));
    return r.success ? r.data : undefined;
  } catch {
    return undefined;
  }
}

/** Why this side cannot talk to the other, or undefined. */
export function incompatibility(h: Hello): string | undefined {
  if (h.castellan_bridge.protocol !== BRIDGE_PROTOCOL) return `its bridge speaks protocol ${h.castellan_bridge.protocol}, this castellan ${BRIDGE_PROTOCOL}`;
  if (!h.castellan_bridge.capabilities.includes('rpc')) return 'its bridge does not offer requests (rpc)';
  if (h.server.state === 'running' && (h.server.protocol === undefined || !SPOKEN_PROTOCOLS.includes(h.server.protocol))) {
    return `its server speaks socket protocol ${h.server.protocol ?? '?'}, this castellan ${SPOKEN_PROTOCOLS.join('/')}`;
  }
  return undefined;
}
