// The one file the Agent Client Protocol SDK enters through; loaded only by `castellan acp` (and its tests).
export type * as Acp from '@agentclientprotocol/sdk';

export type AcpSdk = typeof import('@agentclientprotocol/sdk');

/** The SDK, imported on first use: nothing else in castellan pays for it. */
export function loadSdk(): Promise<AcpSdk> {
  return import('@agentclientprotocol/sdk');
}
