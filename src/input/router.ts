// The prefix state machine: input events → bytes for the pane, commands, and prefix-indicator changes.
import { parseCommand, type BoundCommand } from '../core/commands.js';
import type { Binding, Keymap } from './keymap.js';
import type { InputEvent, MouseEvent } from './keys.js';

export type RouterOutput =
  /** Bytes for the focused pane exactly as typed; consecutive ones are coalesced. */
  | { kind: 'send'; data: string }
  /** Bracketed paste text; the server re-brackets it if the pane asked for bracketed paste. */
  | { kind: 'paste'; text: string }
  | { kind: 'mouse'; event: MouseEvent }
  | { kind: 'focus'; focused: boolean }
  | { kind: 'command'; command: BoundCommand; binding: Binding }
  /** For the UI's prefix indicator. */
  | { kind: 'prefix'; active: boolean }
  /** A key after the prefix that is bound to nothing: swallowed, like tmux; the UI may show a hint. */
  | { kind: 'unbound'; key: string };

export const DEFAULT_REPEAT_MS = 500;

/**
 * Pure: no I/O and no timers; the caller passes the time with each batch of events. Mirrors tmux:
 * the prefix arms the prefix table for exactly one key; a repeatable binding keeps a window open in
 * which other repeatable prefix bindings fire without the prefix.
 */
export class Router {
  private keymap: Keymap;
  private readonly repeatMs: number;
  private prefix = false;
  /** End of the repeat window (ms, in the caller's clock), or null when closed. */
  private repeatUntil: number | null = null;
  private readonly parsed = new WeakMap<Binding, BoundCommand | null>();

  constructor(keymap: Keymap, opts: { repeatMs?: number } = {}) {
    this.keymap = keymap;
    this.repeatMs = opts.repeatMs ?? DEFAULT_REPEAT_MS;
  }

  setKeymap(keymap: Keymap): void {
    this.keymap = keymap;
    this.repeatUntil = null;
  }

  get prefixActive(): boolean {
    return this.prefix;
  }

  /**
   * Would `key` go to the pane as typed, changing nothing here? (No prefix pending, no repeat window open, not the
   * prefix, bound to nothing in the root table.) What feed() would do with it then, without the events and outputs.
   */
  passesThrough(key: string): boolean {
    return !this.prefix && this.repeatUntil === null && key !== this.keymap.prefix && !this.keymap.lookup('root', key);
  }

  reset(): void {
    this.prefix = false;
    this.repeatUntil = null;
  }

  feed(events: InputEvent[], now: number): RouterOutput[] {
    const out: RouterOutput[] = [];
    let pending = '';
    const emit = (o: RouterOutput): void => {
      if (pending) out.push({ kind: 'send', data: pending });
      pending = '';
      out.push(o);
    };
    for (const ev of events) {
      if (ev.type === 'focus') { emit({ kind: 'focus', focused: ev.focused }); continue; }
      if (ev.type === 'paste' || ev.type === 'mouse') {
        // A click or paste means the user moved on: a pending prefix or repeat run is over.
        this.repeatUntil = null;
        if (this.prefix) this.setPrefix(false, emit);
        emit(ev.type === 'paste' ? { kind: 'paste', text: ev.text } : { kind: 'mouse', event: ev });
        continue;
      }
      // Unknown sequences are usually the outer terminal answering a query: never a prefix key.
      if (ev.key === 'Unknown') { pending += ev.raw; continue; }
      if (this.prefix) {
        this.setPrefix(false, emit);
        this.fire(this.keymap.lookup('prefix', ev.key), ev.key, now, emit);
        continue;
      }
      if (this.repeatUntil !== null) {
        const b = now <= this.repeatUntil ? this.keymap.lookup('prefix', ev.key) : undefined;
        if (b?.repeat) { this.fire(b, ev.key, now, emit); continue; }
        this.repeatUntil = null;
      }
      if (ev.key === this.keymap.prefix) { this.setPrefix(true, emit); continue; }
      const root = this.keymap.lookup('root', ev.key);
      if (root) this.fire(root, ev.key, now, emit);
      else pending += ev.raw;
    }
    if (pending) out.push({ kind: 'send', data: pending });
    return out;
  }

  private setPrefix(active: boolean, emit: (o: RouterOutput) => void): void {
    this.prefix = active;
    emit({ kind: 'prefix', active });
  }

  private fire(b: Binding | undefined, key: string, now: number, emit: (o: RouterOutput) => void): void {
    const command = b ? this.command(b) : null;
    if (!b || !command) {
      this.repeatUntil = null;
      emit({ kind: 'unbound', key });
      return;
    }
    this.repeatUntil = b.repeat && b.table === 'prefix' ? now + this.repeatMs : null;
    emit({ kind: 'command', command, binding: b });
  }

  /** Parsed once per binding; buildKeymap has already rejected bindings that do not parse. */
  private command(b: Binding): BoundCommand | null {
    let c = this.parsed.get(b);
    if (c === undefined) {
      const r = parseCommand(b.command);
      c = r.ok ? r.command : null;
      this.parsed.set(b, c);
    }
    return c;
  }
}
