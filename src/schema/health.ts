import { z } from 'zod';

/** GET /health and GET /ready when the answer is yes; a no from /ready is a 503 error body. */
export const healthSchema = z.object({ status: z.literal('ok') });
export type Health = z.infer<typeof healthSchema>;
