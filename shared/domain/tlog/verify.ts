import { emptyRoot, hashEquals, HASH_SIZE, nodeHash, type Hash } from './hash.js';

/**
 * Verifying RFC 6962 proofs without the tree (RFC 9162 §2.1.3.2 and §2.1.4.2), synchronous and pure. Indices and
 * sizes are safe integers, so the bit steps are written as arithmetic (JavaScript's bit operators are 32-bit).
 */

/** A proof that cannot be checked at all: bad index or size, wrong number of hashes, a hash not 32 bytes. */
export class InvalidProofError extends Error {
  override name = 'InvalidProofError';
}

const odd = (n: number) => n % 2 === 1;
const half = (n: number) => Math.floor(n / 2);

function checkHashes(hashes: readonly Hash[]): void {
  if (hashes.some((h) => h.length !== HASH_SIZE)) throw new InvalidProofError('a proof hash is not 32 bytes');
}

/** The root that leaf hash `leaf` at `index` and its inclusion proof imply for a tree of `size`; throws on a malformed proof. */
export function rootFromInclusion(leaf: Hash, index: number, size: number, proof: readonly Hash[]): Hash {
  if (!Number.isSafeInteger(size) || !Number.isSafeInteger(index) || index < 0 || index >= size) {
    throw new InvalidProofError(`leaf index ${index} is not in a tree of size ${size}`);
  }
  if (leaf.length !== HASH_SIZE) throw new InvalidProofError('the leaf hash is not 32 bytes');
  checkHashes(proof);
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) throw new InvalidProofError('the inclusion proof is too long');
    if (odd(fn) || fn === sn) {
      r = nodeHash(p, r);
      if (!odd(fn)) {
        while (!odd(fn) && fn !== 0) {
          fn = half(fn);
          sn = half(sn);
        }
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = half(fn);
    sn = half(sn);
  }
  if (sn !== 0) throw new InvalidProofError('the inclusion proof is too short');
  return r;
}

/** Whether `proof` proves leaf hash `leaf` at `index` in the tree of `size` with root `root`. */
export function verifyInclusion(
  leaf: Hash,
  index: number,
  size: number,
  proof: readonly Hash[],
  root: Hash,
): boolean {
  try {
    return hashEquals(rootFromInclusion(leaf, index, size, proof), root);
  } catch (error) {
    if (error instanceof InvalidProofError) return false;
    throw error;
  }
}

/**
 * Whether `proof` proves that the tree of `oldSize` with root `oldRoot` is a prefix of the tree of `newSize` with
 * root `newRoot`. Equal sizes need an empty proof and equal roots. Old size 0 needs an empty proof and the empty
 * root as `oldRoot` (the empty tree is a prefix of every tree; C2SP tlog-witness sends no proof from 0), where
 * RFC 9162 leaves the case undefined and transparency-dev/merkle refuses it.
 */
export function verifyConsistency(
  oldSize: number,
  newSize: number,
  proof: readonly Hash[],
  oldRoot: Hash,
  newRoot: Hash,
): boolean {
  if (!Number.isSafeInteger(oldSize) || !Number.isSafeInteger(newSize) || oldSize < 0 || oldSize > newSize) {
    return false;
  }
  if (proof.some((h) => h.length !== HASH_SIZE)) return false;
  if (oldSize === newSize) {
    if (oldSize === 0 && !hashEquals(oldRoot, emptyRoot())) return false;
    return proof.length === 0 && hashEquals(oldRoot, newRoot);
  }
  if (oldSize === 0) return proof.length === 0 && hashEquals(oldRoot, emptyRoot());
  if (proof.length === 0) return false;

  // RFC 9162 §2.1.4.2.
  const path = isPowerOfTwo(oldSize) ? [oldRoot, ...proof] : [...proof];
  let fn = oldSize - 1;
  let sn = newSize - 1;
  while (odd(fn)) {
    fn = half(fn);
    sn = half(sn);
  }
  let fr = path[0] as Hash;
  let sr = path[0] as Hash;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (odd(fn) || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (!odd(fn)) {
        while (!odd(fn) && fn !== 0) {
          fn = half(fn);
          sn = half(sn);
        }
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 && hashEquals(fr, oldRoot) && hashEquals(sr, newRoot);
}

function isPowerOfTwo(n: number): boolean {
  let k = 1;
  while (k < n) k *= 2;
  return k === n;
}
