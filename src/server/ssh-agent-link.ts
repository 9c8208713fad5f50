// SSH_AUTH_SOCK for panes that outlive the terminal they were started from. An agent socket belongs to one login
// (ssh -A, a desktop session): after a detach and a login elsewhere, the panes' SSH_AUTH_SOCK names a socket that is
// gone, and ssh from a pane (git push, `castellan herd list --machine`) finds no key. tmux leaves this to the user
// (update-environment reaches only new panes); here every pane gets a stable path, a symlink beside the session's
// socket, and each client that attaches points it at its own live agent.
import { lstatSync, renameSync, statSync, symlinkSync, unlinkSync } from 'node:fs';
import { isAbsolute } from 'node:path';

const MAX_PATH = 1024;

export class SshAgentLink {
  private made = false;

  /** `path`: the link (in the user's private socket directory); `serverAgent`: the server's own SSH_AUTH_SOCK. */
  constructor(readonly path: string, private readonly serverAgent: string | undefined) {}

  /** The environment for a new pane: SSH_AUTH_SOCK is the link once there is an agent to point at, else as it was. */
  forPanes(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
    if (!this.made && this.serverAgent && this.point(this.serverAgent)) this.made = true;
    return this.made ? { ...env, SSH_AUTH_SOCK: this.path } : env;
  }

  /**
   * An attached client's agent: the link points there when it is an absolute path to a live Unix socket of this user.
   * Anything else (a relative path, a file, a dead path, another user's socket, an over-long or binary string) is
   * refused and the link stays where it was. Returns whether the link now points at `agent`.
   */
  retarget(agent: unknown): boolean {
    if (typeof agent !== 'string' || !agent || agent.length > MAX_PATH || agent.includes('\0') || !isAbsolute(agent)) return false;
    try {
      const st = statSync(agent);
      if (!st.isSocket() || (process.getuid && st.uid !== process.getuid())) return false;
    } catch {
      return false;
    }
    if (!this.point(agent)) return false;
    this.made = true;
    return true;
  }

  /** Removes the link (server stop); a path that is not a symlink is left alone. */
  remove(): void {
    try {
      if (lstatSync(this.path).isSymbolicLink()) unlinkSync(this.path);
    } catch {
      /* gone */
    }
  }

  /** Replaces the link at once (a new symlink renamed over it): a pane's ssh never sees it missing. */
  private point(target: string): boolean {
    const tmp = `${this.path}.${process.pid}.tmp`;
    try {
      try {
        unlinkSync(tmp);
      } catch {
        /* none */
      }
      symlinkSync(target, tmp);
      renameSync(tmp, this.path);
      return true;
    } catch {
      return false;
    }
  }
}
