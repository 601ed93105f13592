import { checkWebhookUrl } from '../domain/webhooks/url-policy.js';
import {
  parsePlatformWitnesses,
  parseWitnessVkey,
  WitnessKeyError,
} from '../domain/witnesses/witness-vkey.js';
import { platformWitnessesSetting } from '../runtime/config.js';
import type { Deps } from '../runtime/deps.js';
import { listWitnesses } from '../store/witness-store.js';
import { webhookConfig } from './webhook-config.js';

/**
 * The witnesses a firm's checkpoints are submitted to (issue 31, "Submitting"): the ones the firm registered
 * (GET/POST/DELETE /v1/firm/me/witnesses, ./witnesses.ts) and the platform's, configured by the operator in
 * PLATFORM_WITNESSES. Both pass the webhook URL rules (https on a public address; http on loopback in the
 * embedded stack) and are reached through the webhook code's guarded HTTP client.
 */
export interface WitnessTarget {
  keyId: string;
  name: string;
  vkey: string;
  /** Submission prefix without a trailing slash: the service POSTs `${url}/add-checkpoint`. */
  url: string;
  scope: 'firm' | 'platform';
  /** When the firm registered it (null for the platform's). */
  createdAt: string | null;
}

/** The submission prefix as stored: the URL given, without trailing slashes. */
export function submissionPrefix(url: string): string {
  return url.replace(/\/+$/, '');
}

let parsed: { setting: string; targets: WitnessTarget[] } | undefined;

/**
 * The platform-wide witnesses of PLATFORM_WITNESSES, parsed once per setting; a malformed setting throws, naming
 * the entry (bin/local.ts checks it at start, a Lambda fails its first use).
 */
export function platformWitnesses(): WitnessTarget[] {
  const setting = platformWitnessesSetting();
  if (parsed?.setting === setting) return parsed.targets;
  const policy = webhookConfig().policy;
  const targets: WitnessTarget[] = [];
  for (const entry of parsePlatformWitnesses(setting)) {
    let key;
    try {
      key = parseWitnessVkey(entry.vkey);
    } catch (error) {
      if (error instanceof WitnessKeyError)
        throw new Error(`PLATFORM_WITNESSES: the vkey ${entry.vkey} ${error.message}`, { cause: error });
      throw error;
    }
    const checked = checkWebhookUrl(entry.url, policy);
    if (!checked.ok) throw new Error(`PLATFORM_WITNESSES: the URL ${entry.url} ${checked.reason}`);
    if (targets.some((t) => t.keyId === key.keyId))
      throw new Error(`PLATFORM_WITNESSES: two witnesses have the key ID ${key.keyId}`);
    targets.push({ ...key, url: submissionPrefix(entry.url), scope: 'platform', createdAt: null });
  }
  parsed = { setting, targets };
  return targets;
}

/** Every witness of the firm's log: the platform's first, then the firm's by key ID. */
export async function witnessTargets(deps: Deps, firmId: string): Promise<WitnessTarget[]> {
  const platform = platformWitnesses();
  const own = (await listWitnesses(deps, firmId))
    .filter((w) => !platform.some((p) => p.keyId === w.keyId))
    .sort((a, b) => a.keyId.localeCompare(b.keyId))
    .map((w): WitnessTarget => ({
      keyId: w.keyId,
      name: w.name,
      vkey: w.vkey,
      url: w.url,
      scope: 'firm',
      createdAt: w.createdAt,
    }));
  return [...platform, ...own];
}
