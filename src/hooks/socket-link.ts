// The socket client hooks use (the shared one in platform/, so hooks need not depend on src/api).
export { RpcClient as SocketLink, RpcError as LinkError } from '../platform/rpc-client.js';
