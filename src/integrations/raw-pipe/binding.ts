// Node's internal pipe and stream bindings, taken only when they have exactly the shape castellan's raw pipe code uses.
//
// They are what node:net's Socket is built on (process.binding's allow-list in Node 20), but not a public
// API: every use goes through rawPipeBinding, which checks each class, method and constant first and gives
// undefined on any difference, and the callers then take the public path (node:net, process.stdin).
import { getSystemErrorName } from 'node:util';

export interface Handle {
  open(fd: number): unknown;
  unref(): void;
  onread: (ab: ArrayBuffer | undefined) => void;
  connect(req: object, path: string): number;
  writeUtf8String(req: object, s: string): number;
  readStart(): number;
  readStop(): number;
  close(cb?: () => void): void;
}

export interface RawPipeBinding {
  Pipe: new (type: number) => Handle;
  PipeConnectWrap: new () => { oncomplete?: (status: number) => void };
  WriteWrap: new () => { handle?: Handle; oncomplete?: (status: number) => void; async?: boolean };
  SOCKET: number;
  state: Int32Array;
  kReadBytesOrError: number;
  kArrayBufferOffset: number;
  kLastWriteWasAsync: number;
}

let memo: { b: RawPipeBinding | undefined } | undefined;

/** The binding, when this Node has it as used here; undefined otherwise (or when deprecation flags would make it warn or throw). */
export function rawPipeBinding(): RawPipeBinding | undefined {
  return (memo ??= { b: probe() }).b;
}

function probe(): RawPipeBinding | undefined {
  try {
    // --pending-deprecation prints a warning for any process.binding use, --throw-deprecation throws it.
    if (/deprecation/.test(`${process.env.NODE_OPTIONS ?? ''} ${process.execArgv.join(' ')}`)) return undefined;
    const bind = (process as unknown as { binding(m: string): Record<string, unknown> }).binding;
    const p = bind('pipe_wrap') as { Pipe?: unknown; PipeConnectWrap?: unknown; constants?: { SOCKET?: unknown } };
    const s = bind('stream_wrap') as { WriteWrap?: unknown; streamBaseState?: unknown; kReadBytesOrError?: unknown; kArrayBufferOffset?: unknown; kLastWriteWasAsync?: unknown };
    if (typeof p.Pipe !== 'function' || typeof p.PipeConnectWrap !== 'function' || typeof p.constants?.SOCKET !== 'number') return undefined;
    if (typeof s.WriteWrap !== 'function' || !(s.streamBaseState instanceof Int32Array) || typeof s.kReadBytesOrError !== 'number' || typeof s.kArrayBufferOffset !== 'number' || typeof s.kLastWriteWasAsync !== 'number') return undefined;
    const proto = (p.Pipe as { prototype: Record<string, unknown> }).prototype;
    for (const m of ['open', 'connect', 'writeUtf8String', 'readStart', 'readStop', 'close', 'unref']) if (typeof proto[m] !== 'function') return undefined;
    return {
      Pipe: p.Pipe as RawPipeBinding['Pipe'],
      PipeConnectWrap: p.PipeConnectWrap as RawPipeBinding['PipeConnectWrap'],
      WriteWrap: s.WriteWrap as RawPipeBinding['WriteWrap'],
      SOCKET: p.constants.SOCKET,
      state: s.streamBaseState,
      kReadBytesOrError: s.kReadBytesOrError,
      kArrayBufferOffset: s.kArrayBufferOffset,
      kLastWriteWasAsync: s.kLastWriteWasAsync,
    };
  } catch {
    return undefined;
  }
}

/** A libuv status (negative errno) as its name (ENOENT, EOF, ...), or the number when the OS has no name for it. */
export function errName(status: number): string {
  try {
    return getSystemErrorName(status);
  } catch {
    return String(status);
  }
}
