import { z } from 'zod';

/** POST /account: the body is optional; `name` is a label for the account's owner. */
export const accountBodySchema = z
  .object(
    {
      name: z.string({ error: 'name must be a string' }).max(200, { error: 'name must be at most 200 characters' }).nullish(),
    },
    { error: 'the body must be a JSON object, e.g. {"name": "my app"}' },
  )
  .optional();

export const accountSchema = z.object({
  userID: z.string(),
  name: z.string().nullable(),
  /** Shown once, at creation; only its SHA-256 is stored. */
  apiKey: z.string(),
  createdAt: z.iso.datetime({ precision: 3 }),
});
export type Account = z.infer<typeof accountSchema>;

export const serviceInfoSchema = z.object({
  name: z.string(),
  version: z.string(),
  controllerVersion: z.string(),
});
/** GET /version */
export type ServiceInfo = z.infer<typeof serviceInfoSchema>;
