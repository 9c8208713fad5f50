// The shape of a pane id (w1:p1), zod-free for the hook bridge's hot path; src/core/actions.ts's schema says the same.
export const PANE_ID = /^w\d+:p\d+$/;

/** Whether `id` is a pane id; the bridge only forwards ids of that shape. */
export const isPaneId = (id: string | undefined): id is string => !!id && PANE_ID.test(id);
