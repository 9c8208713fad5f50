// client.answer: an attached user's yes/no to a question the server asked (governance prompts).
import { z } from 'zod';
import { defineMethod } from '../define-method.js';
import { ApiError } from '../protocol.js';

export default defineMethod({
  name: 'client.answer',
  description: 'Answer a question pushed to attached clients as {"ask": {...}}; the first answer wins.',
  internal: true,
  params: z.object({ id: z.string().max(50), answer: z.enum(['allow', 'deny']) }).strict(),
  result: z.object({ accepted: z.boolean() }),
  handler: ({ session, conn }, p) => {
    if (!conn.clientId) throw new ApiError('not_attached', 'attach first');
    return { accepted: session.answer(conn.clientId, p.id, p.answer) };
  },
});
