import { createHash } from 'node:crypto';

/**
 * The independent yardstick for the tile-based tree: RFC 6962 §2.1 written out literally, recursively over the
 * whole list of leaves, with node:crypto's SHA-256 (not the library's code path).
 */

export function sha(...parts: Uint8Array[]): Uint8Array {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
}

export const naiveLeafHash = (data: Uint8Array) => sha(Uint8Array.of(0), data);
export const naiveNodeHash = (l: Uint8Array, r: Uint8Array) => sha(Uint8Array.of(1), l, r);

/** k: the largest power of two smaller than n. */
function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** MTH(D[n]) over leaf hashes. */
export function mth(leaves: readonly Uint8Array[]): Uint8Array {
  if (leaves.length === 0) return sha();
  if (leaves.length === 1) return leaves[0]!;
  const k = split(leaves.length);
  return naiveNodeHash(mth(leaves.slice(0, k)), mth(leaves.slice(k)));
}

/** PATH(m, D[n]). */
export function naivePath(m: number, leaves: readonly Uint8Array[]): Uint8Array[] {
  if (leaves.length <= 1) return [];
  const k = split(leaves.length);
  return m < k
    ? [...naivePath(m, leaves.slice(0, k)), mth(leaves.slice(k))]
    : [...naivePath(m - k, leaves.slice(k)), mth(leaves.slice(0, k))];
}

/** PROOF(m, D[n]) = SUBPROOF(m, D[n], true). */
export function naiveConsistency(m: number, leaves: readonly Uint8Array[]): Uint8Array[] {
  const sub = (m: number, d: readonly Uint8Array[], b: boolean): Uint8Array[] => {
    if (m === d.length) return b ? [] : [mth(d)];
    const k = split(d.length);
    return m <= k
      ? [...sub(m, d.slice(0, k), b), mth(d.slice(k))]
      : [...sub(m - k, d.slice(k), false), mth(d.slice(0, k))];
  };
  return m === 0 ? [] : sub(m, leaves, true);
}

/** Leaf data like a firm's: 32 bytes (a chainHash), deterministic per index. */
export function leafData(i: number): Uint8Array {
  return sha(new TextEncoder().encode(`record ${i + 1}`));
}

export const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
