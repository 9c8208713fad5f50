// A popup size for zod at the boundaries (the socket's popup.open, `castellan popup`): the rule of popup-spec.ts.
import { z } from 'zod';
import { POPUP_CELLS, POPUP_PERCENT, POPUP_SIZE_RULE } from './popup-spec.js';

export const popupSizeSchema = z.union([z.number().int().min(POPUP_CELLS.min).max(POPUP_CELLS.max), z.string().regex(POPUP_PERCENT, POPUP_SIZE_RULE)]);
