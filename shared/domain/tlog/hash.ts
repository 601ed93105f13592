import { sha256 } from '@noble/hashes/sha2.js';

/**
 * RFC 6962 §2.1 hashing (SHA-256 with domain separation): the leaf and interior node hashes of every firm's
 * Merkle tree, and the root of the empty tree.
 */

export type Hash = Uint8Array;

export const HASH_SIZE = 32;

/** SHA-256(0x00 ‖ data). A firm's leaf data is the 32 bytes of a record's chainHash. */
export function leafHash(data: Uint8Array): Hash {
  const input = new Uint8Array(1 + data.length);
  input[0] = 0x00;
  input.set(data, 1);
  return sha256(input);
}

/** SHA-256(0x01 ‖ left ‖ right). */
export function nodeHash(left: Hash, right: Hash): Hash {
  const input = new Uint8Array(1 + left.length + right.length);
  input[0] = 0x01;
  input.set(left, 1);
  input.set(right, 1 + left.length);
  return sha256(input);
}

/** The root of the tree of size 0: SHA-256 of the empty string. */
export function emptyRoot(): Hash {
  return sha256(new Uint8Array(0));
}

export function hashEquals(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i += 1) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}

export function isHash(value: Uint8Array): boolean {
  return value.length === HASH_SIZE;
}
