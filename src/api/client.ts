// The socket client as the CLI and the UI know it (the implementation lives in platform/rpc-client.ts).
export { RpcClient as ApiClient, NotRunningError, RpcError, type Pushed } from '../platform/rpc-client.js';
