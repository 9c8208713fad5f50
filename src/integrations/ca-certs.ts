// Keeps NODE_EXTRA_CA_CERTS out of the hook bridge's own start, and gives it back to everything the bridge runs.
//
// Node 20 reads that file and rebuilds its root store before any JavaScript runs: ~70 ms of every hook call on a
// machine that sets it (corporate proxies do; agents inherit it), while the bridge only ever talks to a Unix socket.
// The hook command line therefore starts node with it empty and parks the value in CASTELLAN_CA_CERTS; the bridge
// puts it back into the environment its children get (governance hooks, an agent's own hooks), which may need TLS.

/** The sh assignments that go before the node argv in every hook command castellan installs. */
export const CA_CERTS_ASSIGNMENTS = 'CASTELLAN_CA_CERTS="$NODE_EXTRA_CA_CERTS" NODE_EXTRA_CA_CERTS=';

/** The environment as the agent gave it to the hook: NODE_EXTRA_CA_CERTS as it was, no CASTELLAN_CA_CERTS. */
export function agentEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  // A hook line installed before this change carries neither: its environment is already the agent's.
  if (env.CASTELLAN_CA_CERTS === undefined) return env;
  const out: NodeJS.ProcessEnv = { ...env };
  const saved = out.CASTELLAN_CA_CERTS;
  delete out.CASTELLAN_CA_CERTS;
  if (saved) out.NODE_EXTRA_CA_CERTS = saved;
  else delete out.NODE_EXTRA_CA_CERTS;
  return out;
}
