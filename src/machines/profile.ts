// A machine profile (name, ssh target, session: nothing secret) and the rules its parts must follow.
import { z } from 'zod';
import { hasControls } from '../core/text.js';

export interface MachineProfile {
  name: string;
  /** Anything `ssh` takes as a destination: a Host from ~/.ssh/config, user@host, ssh://user@host:2222. */
  target: string;
  /** The castellan session on that machine (undefined: its default). */
  session?: string;
  disabled?: boolean;
}

/** What names a machine on this side: `local` is this machine, so it is taken. */
import { LOCAL_NAME } from './cli-door.js';
export { LOCAL_NAME };

const NAME_RE = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;
const SESSION_RE = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;

/** Why a machine name is refused, or undefined. The name is also a file-name-like key and a column: no slashes, no controls. */
export function nameProblem(name: string): string | undefined {
  if (name === LOCAL_NAME) return `"${LOCAL_NAME}" names this machine; choose another name`;
  if (!NAME_RE.test(name)) return `invalid machine name ${JSON.stringify(name).slice(0, 80)}: use letters, digits, '_', '-', '.' (up to 64, not starting with '-' or '.')`;
  return undefined;
}

/**
 * Why an ssh target is refused, or undefined. A target starting with `-` would be read by ssh as an option
 * (`-oProxyCommand=...` runs a program), so it is refused here and the argv also puts it after `--`.
 */
export function targetProblem(target: string): string | undefined {
  if (!target) return 'the ssh target is empty';
  if (target.length > 255) return 'the ssh target is longer than 255 characters';
  if (target.startsWith('-')) return `the ssh target ${JSON.stringify(target.slice(0, 40))} starts with '-' (ssh would read it as an option)`;
  if (hasControls(target) || /\s/.test(target)) return 'the ssh target holds spaces or control characters';
  return undefined;
}

export function sessionProblem(session: string): string | undefined {
  if (!SESSION_RE.test(session) || session === '.' || session === '..') return `invalid session name ${JSON.stringify(session).slice(0, 80)}: use letters, digits, '_', '-', '.' (up to 64)`;
  return undefined;
}

/** One profile as stored; the refinements re-check every rule, so a hand-edited or forged file cannot smuggle a bad target in. */
export const profileSchema = z
  .object({
    name: z.string().max(64),
    target: z.string().max(255),
    session: z.string().max(64).optional(),
    disabled: z.boolean().optional(),
  })
  .strict()
  .superRefine((p, ctx) => {
    for (const why of [nameProblem(p.name), targetProblem(p.target), p.session === undefined ? undefined : sessionProblem(p.session)]) {
      if (why) ctx.addIssue({ code: z.ZodIssueCode.custom, message: why });
    }
  });

export const MAX_MACHINES = 256;

export const profilesFileSchema = z.object({
  version: z.literal(1),
  machines: z.array(profileSchema).max(MAX_MACHINES),
});
export type ProfilesFile = z.infer<typeof profilesFileSchema>;
