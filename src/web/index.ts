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
