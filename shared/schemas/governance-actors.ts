import * as z from 'zod';
import { ROLES } from '../domain/auth/principal.js';

/** The embedded actor of governance resources (createdBy, signedOffBy, reportedBy, generatedByUser). */
export const ActorSummary = z
  .object({
    id: z.string().meta({ description: 'User id (usr_...) or API key id (key_...)' }),
    type: z.enum(['USER', 'API_KEY']),
    name: z.string(),
    email: z.string().nullable().meta({ description: 'The user e-mail; null for an API key' }),
    role: z.enum(ROLES).nullable().meta({ description: 'The user role at the time; null for an API key' }),
  })
  .meta({
    id: 'ActorSummary',
    description:
      'Who acted, as recorded when it happened (a snapshot: later renames or role changes do not alter it)',
  });
