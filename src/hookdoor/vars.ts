// What the door's sh side hands over besides the payload: the environment variables the bridge's run reads.
//
// The one list: share/hooks/door.sh writes exactly these (test/hookdoor/door-sh.test.ts holds the two together), as
// NUL-terminated NAME=value records, set ones only. The server never reads another process's environment: in a sandbox's own pid
// namespace the requester's $$ names some other process of ours.

/**
 * paths.ts reads HOME, XDG_STATE_HOME, CASTELLAN_SOCKET and CASTELLAN_SESSION; the run (hook-command.ts, bridge.ts,
 * govern.ts, server-decide.ts) reads CASTELLAN_ENV, CASTELLAN_PANE_ID, CASTELLAN_AGENT_ID, CASTELLAN_GOAL_ID and
 * CASTELLAN_HOOK_DEBUG; ca-certs.ts puts CASTELLAN_CA_CERTS back into NODE_EXTRA_CA_CERTS. PWD is the hook's working
 * directory (door.sh takes it physical, as process.cwd() is).
 */
export const DOOR_VARS = [
  'HOME',
  'XDG_STATE_HOME',
  'CASTELLAN_SOCKET',
  'CASTELLAN_SESSION',
  'CASTELLAN_ENV',
  'CASTELLAN_PANE_ID',
  'CASTELLAN_AGENT_ID',
  'CASTELLAN_GOAL_ID',
  'CASTELLAN_HOOK_DEBUG',
  'CASTELLAN_CA_CERTS',
  'NODE_EXTRA_CA_CERTS',
  'PWD',
] as const;

const KNOWN = new Set<string>(DOOR_VARS);

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The records of a request file as an environment, or why they are not well-formed (unknown or repeated name, no NUL
 * end, not UTF-8). Not UTF-8 is refused rather than decoded with U+FFFD: a PWD decoded so names another directory,
 * whose project config the run would not find; the bridge takes such a call.
 */
export function parseEnvRecords(buf: Buffer): { env: Record<string, string> } | { why: string } {
  const env: Record<string, string> = {};
  if (buf.length === 0) return { env };
  if (buf[buf.length - 1] !== 0) return { why: 'the last record is not NUL-terminated' };
  let text: string;
  try {
    text = UTF8.decode(buf.subarray(0, buf.length - 1));
  } catch {
    return { why: 'the records are not UTF-8' };
  }
  for (const rec of text.split('\0')) {
    const i = rec.indexOf('=');
    const name = i > 0 ? rec.slice(0, i) : '';
    if (!KNOWN.has(name)) return { why: `unexpected record ${JSON.stringify(rec.slice(0, 40))}` };
    if (name in env) return { why: `${name} given twice` };
    env[name] = rec.slice(i + 1);
  }
  return { env };
}
