import * as z from 'zod';
import { API_KEY_SCOPES } from '../domain/auth/principal.js';
import { PLANS } from '../domain/firm/plans.js';
import { Timestamp } from './common.js';
import { StorableNumber, WellFormedString } from './storable-json.js';

const Fraction = StorableNumber.min(0).max(1);

export const FirmSettings = z
  .object({
    biasWarningThreshold: Fraction.meta({
      description: 'Bias: absolute rejection-rate delta from baseline that warns; default 0.1',
    }),
    biasAlertThreshold: Fraction.meta({
      description: 'Bias: delta that alerts; default 0.2; >= biasWarningThreshold',
    }),
    biasAbsoluteRejectionThreshold: Fraction.meta({
      description: 'Bias: segment rejection rate that rejects; default 0.5',
    }),
    cdRejectionRateWarningThreshold: Fraction.meta({
      description: 'Consumer Duty: rejection rate that warns; default 0.15',
    }),
    cdRejectionRateAlertThreshold: Fraction.meta({
      description: 'Consumer Duty: rejection rate that alerts; default 0.25',
    }),
    cdSlaComplianceWarningThreshold: Fraction.meta({
      description: 'Consumer Duty: SLA compliance below which it warns; default 0.95',
    }),
    cdSlaComplianceAlertThreshold: Fraction.meta({
      description: 'Consumer Duty: SLA compliance below which it alerts; default 0.9',
    }),
    cdReadCompletionWarningThreshold: Fraction.meta({
      description: 'Consumer Duty: read completion below which it warns; default 0.8',
    }),
    enforceImpactAssessments: z
      .boolean()
      .meta({ description: 'Gate AI-assisted jobs on an APPROVED impact assessment; default true' }),
  })
  .meta({ id: 'FirmSettings' });

export const FirmSettingsUpdate = FirmSettings.partial()
  .strict()
  .meta({ id: 'FirmSettingsUpdate', description: 'Any subset of the settings; unknown fields are refused' });

export const Firm = z
  .object({
    id: z.string(),
    name: z.string(),
    frnNumber: z.string(),
    plan: z.enum(PLANS),
    createdAt: Timestamp,
    settings: FirmSettings,
  })
  .meta({ id: 'Firm' });

export const FirmStats = z
  .object({ recordCount: z.number().int(), certificateCount: z.number().int(), jobCount: z.number().int() })
  .meta({ id: 'FirmStats' });

export const ApiKeyScopeSchema = z.enum(API_KEY_SCOPES).meta({
  id: 'ApiKeyScope',
  description:
    'full: acts for the firm on every operation that takes an API key. auditor: read-only, for a regulator or a witness operator: only the ledger records (GET /v1/ledger/records, /v1/ledger/records/{id}) and the verifiable log (/v1/ledger/log/…, GET /v1/ledger/records/{id}/proof); every other operation answers it 403 FORBIDDEN.',
});

export const ApiKey = z
  .object({
    id: z.string(),
    name: z.string(),
    keyPrefix: z.string().meta({ description: 'First characters of the key, to recognise it' }),
    scope: ApiKeyScopeSchema,
    createdAt: Timestamp,
  })
  .meta({ id: 'ApiKey' });

export const ApiKeyCreated = z
  .object({
    id: z.string(),
    key: z.string().meta({ description: 'The full key. Shown only in this response; store it now.' }),
    name: z.string(),
    scope: ApiKeyScopeSchema,
    createdAt: Timestamp,
  })
  .meta({ id: 'ApiKeyCreated' });

export const CreateApiKeyBody = z.strictObject({
  name: WellFormedString.trim().min(1).max(100),
  scope: ApiKeyScopeSchema.default('full'),
});

export const KeyIdParam = z.object({ keyId: WellFormedString.min(1).max(200) });

export const FrnNumber = z.string().regex(/^\d{6,7}$/, 'FCA firm reference numbers have 6 or 7 digits');

/** Input of `ledgerctl firm create`. */
export const OnboardFirm = z.strictObject({
  name: WellFormedString.trim().min(1).max(200),
  frnNumber: FrnNumber,
  plan: z.enum(PLANS),
  adminName: WellFormedString.trim().min(1).max(200),
  adminEmail: z.email(),
  adminFcaRef: WellFormedString.trim().min(1).max(20).nullable().optional(),
});
