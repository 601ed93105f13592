import * as z from 'zod';
import { MAX_WEBHOOK_URL_LENGTH } from '../domain/webhooks/url-policy.js';
import { MAX_WITNESS_VKEY_LENGTH } from '../domain/witnesses/witness-vkey.js';
import { Timestamp } from './common.js';
import { WellFormedString } from './storable-json.js';

export const CreateWitnessBody = z.strictObject({
  vkey: WellFormedString.min(1).max(MAX_WITNESS_VKEY_LENGTH).meta({
    description:
      "The witness's C2SP verifier key, `<name>+<hex key ID>+<base64(0x04 ‖ Ed25519 public key)>` (signature type 0x04, cosignature/v1; the key ID must match the name and key). Our witness (`npm run witness`) prints it when it starts.",
  }),
  url: WellFormedString.min(1).max(MAX_WEBHOOK_URL_LENGTH).meta({
    format: 'uri',
    description:
      "The witness's submission prefix (C2SP tlog-witness): the service POSTs `<url>/add-checkpoint`. The webhook URL rules apply: https on a public address (private, loopback, link-local and metadata addresses are refused, also when a host name resolves to one at submission time); the embedded development stack also accepts http on 127.0.0.1 and localhost.",
  }),
});

export const WitnessKeyIdParam = z.object({
  keyId: z
    .string()
    .regex(/^[0-9a-f]{8}$/, 'A witness key ID is 8 lowercase hex digits')
    .meta({ description: "The witness's key ID (8 hex digits, from its vkey)" }),
});

const WitnessStatus = z
  .object({
    acknowledgedSize: z
      .number()
      .int()
      .nullable()
      .meta({
        description:
          'The tree size the witness last acknowledged (cosigned, or named in a 409); null before any answer',
      }),
    cosignedSize: z.number().int().nullable().meta({ description: 'The latest checkpoint size it cosigned' }),
    cosignedAt: Timestamp.nullable(),
    lastOutcome: z
      .enum(['cosigned', 'size', 'refused', 'unavailable', 'rejected', 'bad-cosignature'])
      .nullable()
      .meta({
        description:
          'The last submission: cosigned (200, cosignature verified and kept); size (409, its size learnt); refused (422: a bad consistency proof, it holds another history: alarm and log.witness-refused); unavailable (no answer, 5xx or 429: retried with backoff); rejected (another 4xx, e.g. 404 it does not follow this log, 403 it does not trust its keys); bad-cosignature (200 without a cosignature that verifies with its vkey: not kept)',
      }),
    lastError: z.string().nullable(),
    lastAttemptAt: Timestamp.nullable(),
    refusing: z.boolean().meta({ description: 'True from a 422 until the witness cosigns again' }),
    refusedAt: Timestamp.nullable(),
    refusedSize: z.number().int().nullable(),
  })
  .meta({ id: 'WitnessStatus' });

export const Witness = z
  .object({
    keyId: z.string().meta({ description: 'The key ID of its vkey, 8 hex digits: its id in this API' }),
    name: z.string().meta({ description: 'The key name of its vkey, which its cosignature lines carry' }),
    vkey: z.string(),
    url: z.string().meta({ description: 'Submission prefix: the service POSTs `<url>/add-checkpoint`' }),
    scope: z.enum(['firm', 'platform']).meta({
      description:
        'firm: registered by the firm (removable); platform: configured by the operator for every firm (PLATFORM_WITNESSES)',
    }),
    createdAt: Timestamp.nullable(),
    status: WitnessStatus,
  })
  .meta({ id: 'Witness' });
