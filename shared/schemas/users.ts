import * as z from 'zod';
import { ROLES } from '../domain/auth/principal.js';
import { DEFAULT_ROLE, FCA_REF_MESSAGE, FCA_REF_PATTERN } from '../domain/users/user-rules.js';
import { QUALIFICATIONS } from '../domain/users/user-rules.js';
import { Timestamp } from './common.js';
import { uniqueArray } from './unique-items.js';
import { WellFormedString } from './storable-json.js';

const Qualifications = uniqueArray(z.enum(QUALIFICATIONS), 'qualification').meta({
  description: 'Professional qualifications, used by routing; each at most once',
});

export const FcaRef = z.string().regex(FCA_REF_PATTERN, FCA_REF_MESSAGE).nullable().meta({
  description:
    "The regulator's individual reference number: 3 letters and 5 digits (e.g. ABC12345), or null for a user without one. Required: send null explicitly.",
});

export const User = z
  .object({
    id: z.string(),
    name: z.string(),
    email: z.email(),
    fcaRef: z.string().nullable(),
    qualifications: z.array(z.enum(QUALIFICATIONS)),
    role: z.enum(ROLES),
    isAvailable: z.boolean(),
    specialistVulnerability: z
      .boolean()
      .meta({ description: 'FG21/1 specialist: may handle jobs that carry vulnerability flags' }),
    invitedAt: Timestamp,
    activatedAt: Timestamp.nullable().meta({ description: 'First sign-in; null until then' }),
    deactivatedAt: Timestamp.nullable(),
    activeJobId: z.string().nullable(),
  })
  .meta({ id: 'User' });

export const CreateUserBody = z
  .strictObject({
    name: WellFormedString.trim().min(1).max(200),
    email: z
      .email()
      .max(254)
      .meta({ description: 'Unique within the firm, compared case-insensitively; stored in lower case' }),
    fcaRef: FcaRef,
    qualifications: Qualifications.default([]),
    role: z
      .enum(ROLES)
      .default(DEFAULT_ROLE)
      .meta({ description: 'Default REVIEWER; any other role needs a signed-in FIRM_ADMIN' }),
    specialistVulnerability: z.boolean().default(false),
  })
  .meta({ id: 'CreateUser' });

export const UpdateUserBody = z
  .strictObject({
    specialistVulnerability: z.boolean().optional(),
    role: z
      .enum(ROLES)
      .optional()
      .meta({ description: 'Needs a signed-in FIRM_ADMIN (an API key or another role: 403)' }),
  })
  .refine((body) => body.specialistVulnerability !== undefined || body.role !== undefined, {
    message: 'Send specialistVulnerability, role or both',
  })
  .meta({ id: 'UpdateUser', minProperties: 1 });
