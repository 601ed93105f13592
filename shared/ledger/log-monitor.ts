import { parseCheckpoint, type Checkpoint } from '../domain/tlog/checkpoint.js';
import { parseHashLines } from '../domain/tlog/consistency-format.js';
import { encodeHex } from '../domain/tlog/encoding.js';
import { hashEquals } from '../domain/tlog/hash.js';
import { parseNote, SIG_ECDSA, SIG_ED25519, verifierFromVkey } from '../domain/tlog/note.js';
import { verifyConsistency } from '../domain/tlog/verify.js';

/**
 * One step of `verify-evidence monitor` (issue 31), pure apart from WebCrypto: the checkpoint just fetched must
 * carry a valid 0x02 ECDSA and a valid 0x01 Ed25519 signature by the log vkeys pinned in the state, meet the
 * witness policy, and extend the checkpoint the state kept (same size: same root; larger: the consistency proof
 * verifies; smaller: never). A failure carries both signed notes: together they prove a split view.
 */

export interface MonitorState {
  /** The log's C2SP vkeys, pinned on the first run (trust on first use). */
  vkeys: string[];
  /** The last checkpoint that passed, as served (signed note); null before the first. */
  checkpoint: string | null;
}

export interface MonitorPolicy {
  witnesses: readonly string[];
  witnessesNeeded: number;
}

export type MonitorResult =
  | { ok: true; checkpoint: Checkpoint; previousSize: number | null; cosignedBy: string[] }
  | { ok: false; problem: string; kept: string | null; fetched: string };

/** Which pinned log keys (by kind) and which witnesses signed `note`; throws on a malformed note. */
async function signersOf(
  note: string,
  vkeys: readonly string[],
): Promise<{ text: string; checkpoint: Checkpoint; kinds: Set<number>; names: Map<string, string> }> {
  const { text, signatures } = parseNote(note);
  const checkpoint = parseCheckpoint(text);
  const kinds = new Set<number>();
  const names = new Map<string, string>();
  for (const vkey of vkeys) {
    const verifier = await verifierFromVkey(vkey);
    const signature = signatures.find(
      (s) => s.name === verifier.name && encodeHex(s.keyId) === encodeHex(verifier.keyId),
    );
    if (!signature) continue;
    if (!(await verifier.verify(text, signature.signature)))
      throw new Error(`the signature of ${verifier.name}+${encodeHex(verifier.keyId)} does not verify`);
    kinds.add(verifier.type);
    names.set(vkey, verifier.name);
  }
  return { text, checkpoint, kinds, names };
}

/** The consistency proof (hash lines) is only needed when the fetched checkpoint is larger than the kept one. */
export async function monitorStep(
  state: MonitorState,
  fetched: string,
  consistencyLines: string | null,
  policy: MonitorPolicy,
): Promise<MonitorResult> {
  const kept = state.checkpoint;
  const refuse = (problem: string): MonitorResult => ({ ok: false, problem, kept, fetched });
  let current: Awaited<ReturnType<typeof signersOf>>;
  try {
    current = await signersOf(fetched, state.vkeys);
  } catch (error) {
    return refuse(`the fetched checkpoint does not verify: ${(error as Error).message}`);
  }
  if (!current.kinds.has(SIG_ECDSA) || !current.kinds.has(SIG_ED25519))
    return refuse(
      'the fetched checkpoint lacks a valid 0x02 ECDSA or 0x01 Ed25519 signature by the pinned log vkeys (a key the state does not pin signed it: if the log rotated its key, check the new vkeys and pin them deliberately)',
    );
  const witnesses = await signersOf(fetched, policy.witnesses).catch(() => null);
  const cosignedBy = witnesses ? [...witnesses.names.values()] : [];
  if (cosignedBy.length < policy.witnessesNeeded)
    return refuse(
      `${cosignedBy.length} of the ${policy.witnesses.length} given witnesses cosigned the checkpoint; ${policy.witnessesNeeded} required`,
    );
  const next = current.checkpoint;
  if (kept === null) return { ok: true, checkpoint: next, previousSize: null, cosignedBy };
  const old = parseCheckpoint(parseNote(kept).text);
  if (old.origin !== next.origin)
    return refuse(`the fetched checkpoint is of origin ${next.origin}, the kept one of ${old.origin}`);
  if (next.size < old.size)
    return refuse(`the log's size went down from ${old.size} to ${next.size}: a split view or a rollback`);
  if (next.size === old.size) {
    return hashEquals(old.root, next.root)
      ? { ok: true, checkpoint: next, previousSize: old.size, cosignedBy }
      : refuse(`two checkpoints of size ${old.size} with different roots: a split view`);
  }
  let proof: Uint8Array[];
  try {
    proof = parseHashLines(consistencyLines ?? '');
  } catch (error) {
    return refuse(`the consistency proof is malformed: ${(error as Error).message}`);
  }
  if (!verifyConsistency(old.size, next.size, proof, old.root, next.root))
    return refuse(
      `the checkpoint of size ${next.size} is not consistent with the kept one of size ${old.size}: the history was rewritten or split`,
    );
  return { ok: true, checkpoint: next, previousSize: old.size, cosignedBy };
}
