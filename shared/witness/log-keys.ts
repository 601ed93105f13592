import { SIG_ECDSA, SIG_ED25519, verifierFromVkey, type VkeyVerifier } from '../domain/tlog/note.js';

/**
 * The logs a witness follows: each identified by its checkpoint origin, with one or more vkeys (a log may sign
 * with several keys, e.g. our ledger's ECDSA P-256 and Ed25519 keys, or an old and a new key while it rotates).
 * An entry is `<vkey>` (the origin is the vkey's key name, as C2SP tlog-checkpoint recommends) or
 * `<origin> <vkey>`; a file holds one entry a line, `#` comments and blank lines ignored.
 */

export class LogKeyConfigError extends Error {
  override name = 'LogKeyConfigError';
}

export type LogKeys = ReadonlyMap<string, readonly VkeyVerifier[]>;

export function parseLogKeyFile(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.replace(/#.*$/, '').trim())
    .filter((line) => line.length > 0);
}

export async function loadLogKeys(entries: readonly string[]): Promise<LogKeys> {
  const logs = new Map<string, VkeyVerifier[]>();
  for (const entry of entries) {
    const parts = entry.trim().split(/\s+/);
    if (parts.length < 1 || parts.length > 2 || parts[0] === '') {
      throw new LogKeyConfigError(
        `log key entry ${JSON.stringify(entry)}: expected "<vkey>" or "<origin> <vkey>"`,
      );
    }
    const vkey = parts[parts.length - 1] as string;
    const verifier = await verifierFromVkey(vkey).catch((error: Error) => {
      throw new LogKeyConfigError(`log vkey ${JSON.stringify(vkey)}: ${error.message}`);
    });
    if (verifier.type !== SIG_ED25519 && verifier.type !== SIG_ECDSA) {
      throw new LogKeyConfigError(`log vkey ${JSON.stringify(vkey)}: a log signs with type 0x01 or 0x02`);
    }
    const origin = parts.length === 2 ? (parts[0] as string) : verifier.name;
    const known = logs.get(origin) ?? [];
    if (!known.some((v) => v.vkey === vkey)) known.push(verifier);
    logs.set(origin, known);
  }
  if (logs.size === 0) throw new LogKeyConfigError('no log vkey configured: the witness would follow no log');
  return logs;
}
