// What a page's action does to a pane, carried out by the server that owns the pane: the page's own server for its
// panes, and through the web.act socket method for another session's or machine's (audited there, with the browser).
import { answerKeys, answerSequence, pressKeys } from './answer-keys.js';
import type { WebHost } from './types.js';

export type Action =
  | { t: 'typing'; pane: string; on: boolean }
  | { t: 'input'; pane: string; data: string }
  | { t: 'answer'; pane: string; answer: 'approve' | 'deny'; message?: string }
  | { t: 'prompt'; pane: string; text: string };

/** Who asked: the browser session, its address, and (from another server) which server's page it came through. */
export interface Actor {
  browser_session: string;
  remote: string;
  via?: string;
}

/** Strips what must not reach a pane from text the page sends as a prompt or message (it is typed, not pasted). */
export const promptText = (s: string): string => s.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '').replace(/\r?\n/g, ' ');

/**
 * Carries out one action on a pane of `host`, audited there. Resolves when it was accepted (an answer's keys are on
 * their way; a prompt was delivered); throws with the reason the page shows. `late` gets failures that come after
 * (a deny's message typed after its keys).
 */
export async function act(host: WebHost, who: Actor, m: Action, late: (e: Error) => void = () => undefined): Promise<void> {
  const st = host.state().panes[m.pane];
  if (!st) throw new Error(`no pane ${m.pane}`);
  const agent = st.agent.agent;
  const record = { kind: 'web', browser_session: who.browser_session, remote: who.remote, ...(who.via ? { via: who.via } : {}), session: host.session, pane: m.pane, ...(agent ? { agent } : {}) };
  switch (m.t) {
    case 'typing':
      host.audit({ ...record, action: m.on ? 'typing_on' : 'typing_off' });
      return;
    case 'input':
      host.write(m.pane, m.data);
      host.audit({ ...record, action: 'keys', bytes: Buffer.byteLength(m.data) });
      return;
    case 'answer': {
      // Only a dialog that is up gets an answer: an Enter sent to a working agent would be a prompt, not a yes.
      if (st.agent.state !== 'blocked') throw new Error(`${m.pane} is not waiting for an answer (it is ${st.agent.state})`);
      const keys = answerKeys(agent, host.screen(m.pane)?.viewportRows());
      const message = m.answer === 'deny' && m.message ? promptText(m.message).trim() : '';
      const pressed = pressKeys((data) => host.write(m.pane, data), answerSequence(keys, m.answer, !!message));
      host.audit({ ...record, action: m.answer, ...(message ? { message } : {}) });
      if (message) void pressed.then(() => setTimeout(() => void host.prompt(m.pane, message).catch(late), keys.messageDelayMs).unref(), late);
      else pressed.catch(late);
      return;
    }
    case 'prompt': {
      if (st.exited) throw new Error(`${m.pane} has exited`);
      if (st.agent.state === 'blocked') throw new Error(`${m.pane} is waiting for an answer: approve or deny first`);
      const text = promptText(m.text).trim();
      if (!text) throw new Error('empty prompt');
      host.audit({ ...record, action: 'prompt', text });
      const r = await host.prompt(m.pane, text);
      if (!r.sent) throw new Error(`not sent: ${r.reason ?? 'refused'}`);
      return;
    }
  }
}
