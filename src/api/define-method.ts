// defineMethod: one socket method = a name, a description, zod schemas for params and result, and a handler.
import type { z } from 'zod';
import type { MethodContext } from './context.js';

export interface MethodDef<P extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  params: P;
  result: R;
  /** Methods only an attached UI client uses are hidden from the published API docs. */
  internal?: boolean;
  handler(ctx: MethodContext, params: z.output<P>): Promise<z.input<R>> | z.input<R>;
  /**
   * For a notification on the keystroke path only: a zod-free check that returns params the schema would accept
   * (as it would output them), or undefined to fall back to the schema. Never looser than `params`.
   */
  quick?(params: unknown): z.output<P> | undefined;
}

export function defineMethod<P extends z.ZodType, R extends z.ZodType>(def: MethodDef<P, R>): MethodDef<P, R> {
  return def;
}
