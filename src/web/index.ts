// The web view's door: a phone-first page over HTTP(S) + WebSocket, paired by one-time links (the rest of the room loads lazily).
import type { WebServer } from './server.js';
import type { WebHost, WebSettings } from './types.js';

export type { PaneScreen, Peer, PeerClient, WebHost, WebSettings, WebStatus } from './types.js';
export { forgetSessions } from './pairing.js';
export type { WebServer } from './server.js';

/** Starts the page's server (ws and the page's code load only now: a server never asked for a page pays nothing). */
export async function startWeb(s: WebSettings, host: WebHost): Promise<WebServer> {
  const { WebServer: Server } = await import('./server.js');
  return Server.start(s, host);
}

/** The pairing URL as a QR code for a terminal (half-block characters). */
export async function qrText(url: string): Promise<string> {
  const qr = (await import('qrcode')).default;
  return qr.toString(url, { type: 'terminal', small: true, errorCorrectionLevel: 'L' });
}

export type { Action, Actor } from './act.js';
export type { FeedSink } from './feed.js';

/** A session's herd rows as the page shows them (for another server's page: web.herd). */
export async function herdOf(state: import('../core/types.js').State): Promise<unknown[]> {
  return (await import('./herd.js')).herdRows(state);
}

/** Streams a pane's screen and frames into `sink` (for another server's page: web.view); returns the stop. */
export async function feedPane(screen: import('./types.js').PaneScreen, pane: string, sink: import('./feed.js').FeedSink): Promise<() => void> {
  const feed = new (await import('./feed.js')).PaneFeed(screen, pane, sink);
  feed.start();
  return () => feed.stop();
}

/** Carries out a page's action on a pane of `host`, audited there (for another server's page: web.act). */
export async function carryOut(host: import('./types.js').WebHost, who: import('./act.js').Actor, action: import('./act.js').Action, late: (e: Error) => void): Promise<void> {
  return (await import('./act.js')).act(host, who, action, late);
}
