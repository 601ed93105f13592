import { parseWitnessVkey, WitnessKeyError } from '../domain/witnesses/witness-vkey.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import { isoNow } from '../ports/clock.js';
import type { Deps } from '../runtime/deps.js';
import {
  deleteWitness,
  listWitnesses,
  putWitness,
  readWitnessStates,
  type WitnessStateItem,
} from '../store/witness-store.js';
import { webhookConfig } from './webhook-config.js';
import { assertRegistrableUrl } from './webhooks.js';
import {
  platformWitnesses,
  submissionPrefix,
  witnessTargets,
  type WitnessTarget,
} from './witness-registry.js';

/** Witnesses a firm may register: each checkpoint is one POST to each, so the number is bounded. */
export const MAX_FIRM_WITNESSES = 10;

function present(target: WitnessTarget, state: WitnessStateItem | undefined) {
  return {
    keyId: target.keyId,
    name: target.name,
    vkey: target.vkey,
    url: target.url,
    scope: target.scope,
    createdAt: target.createdAt,
    status: {
      acknowledgedSize: state?.acknowledgedSize ?? null,
      cosignedSize: state?.cosignedSize ?? null,
      cosignedAt: state?.cosignedAt ?? null,
      lastOutcome: state?.lastOutcome ?? null,
      lastError: state?.lastError ?? null,
      lastAttemptAt: state?.lastAttemptAt ?? null,
      refusing: state?.refusing ?? false,
      refusedAt: state?.refusedAt ?? null,
      refusedSize: state?.refusedSize ?? null,
    },
  };
}

/** The platform's witnesses, then the firm's, each with what the service knows of it. */
export async function firmWitnesses(deps: Deps, firmId: string) {
  const [targets, states] = await Promise.all([
    witnessTargets(deps, firmId),
    readWitnessStates(deps, firmId),
  ]);
  return targets.map((target) => present(target, states.get(target.keyId)));
}

/**
 * Registers a witness: its vkey must be a C2SP cosignature/v1 key (type 0x04) whose key ID matches, its
 * submission prefix URL must pass the webhook URL rules (the same SSRF guard). 409 when the firm or the platform
 * already has a witness of that key ID, or the firm has MAX_FIRM_WITNESSES.
 */
export async function registerWitness(deps: Deps, firmId: string, input: { vkey: string; url: string }) {
  let key;
  try {
    key = parseWitnessVkey(input.vkey);
  } catch (error) {
    if (!(error instanceof WitnessKeyError)) throw error;
    throw new ValidationError(`Witness vkey refused: it ${error.message}`, [
      { path: 'body.vkey', message: `vkey ${error.message}` },
    ]);
  }
  await assertRegistrableUrl(input.url, webhookConfig().policy, 'Witness URL');
  if (platformWitnesses().some((p) => p.keyId === key.keyId))
    throw new ConflictError(
      `The witness ${key.keyId} is a platform witness: every firm's log is submitted to it`,
    );
  const existing = await listWitnesses(deps, firmId);
  if (existing.some((w) => w.keyId === key.keyId))
    throw new ConflictError(`A witness with key ID ${key.keyId} is already registered`);
  if (existing.length >= MAX_FIRM_WITNESSES)
    throw new ConflictError(`A firm may register at most ${MAX_FIRM_WITNESSES} witnesses; remove one first`);
  const target: WitnessTarget = {
    ...key,
    url: submissionPrefix(input.url),
    scope: 'firm',
    createdAt: isoNow(deps.clock),
  };
  const outcome = await putWitness(deps, {
    firmId,
    keyId: target.keyId,
    name: target.name,
    vkey: target.vkey,
    url: target.url,
    createdAt: target.createdAt!,
  });
  if (outcome === 'exists')
    throw new ConflictError(`A witness with key ID ${key.keyId} is already registered`);
  return present(target, undefined);
}

/** Removes one of the firm's witnesses (its cosignatures already gathered stay); 404 unknown, 409 a platform one. */
export async function removeWitness(deps: Deps, firmId: string, keyId: string): Promise<void> {
  if (platformWitnesses().some((p) => p.keyId === keyId))
    throw new ConflictError(
      `The witness ${keyId} is configured by the platform operator; a firm cannot remove it`,
    );
  if (!(await deleteWitness(deps, firmId, keyId))) throw new NotFoundError('Witness not found');
}
