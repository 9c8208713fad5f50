// Limits of the action vocabulary that the client's command table checks without zod; src/core/actions.ts's schema uses the same.
export const NAME_MAX = 200;
export const WINDOW_INDEX_MAX = 999;
export const RESIZE_CELLS_MAX = 1000;
