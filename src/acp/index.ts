// The ACP capability's one door: the proxy `castellan acp` runs, and the name of castellan's event notification.
export { runAcpProxy, CASTELLAN_ERROR, type AcpProxyOptions } from './proxy.js';
export { EVENT_METHOD } from './governor.js';
