// Errors about a machine: an RpcError with a stable code, so the CLI maps it to an exit code like any other.
import { RpcError } from '../platform/rpc-error.js';

export type MachineErrorCode =
  | 'machine_unknown'
  | 'machine_disabled'
  | 'machine_unreachable'
  | 'machine_not_installed'
  | 'machine_incompatible'
  | 'not_running'
  | 'timeout'
  | 'no_ssh';

export class MachineError extends RpcError {
  constructor(
    readonly machine: string,
    code: MachineErrorCode,
    message: string,
  ) {
    super(code, message);
  }
}
