import { emptyRoot, hashEquals, leafHash, nodeHash } from '../../../shared/domain/tlog/hash.js';
import { naiveLeafHash, naiveNodeHash } from './naive-tree.js';

/** RFC 6962 §2.1 hashing; values from transparency-dev/merkle testonly (leaf and level-1 node hashes) as facts. */

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('RFC 6962 hashes', () => {
  it('hashes the empty tree, leaves and nodes as published', () => {
    expect(hex(emptyRoot())).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(hex(leafHash(new Uint8Array(0)))).toBe(
      '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
    );
    expect(hex(leafHash(Uint8Array.of(0x00)))).toBe(
      '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
    );
    expect(hex(leafHash(Uint8Array.of(0x10)))).toBe(
      '0298d122906dcfc10892cb53a73992fc5b9f493ea4c9badb27b791b4127a7fe7',
    );
    expect(hex(nodeHash(leafHash(new Uint8Array(0)), leafHash(Uint8Array.of(0))))).toBe(
      'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
    );
  });

  it('agrees with node:crypto for a firm’s 32-byte leaf data', () => {
    const data = new Uint8Array(32).map((_, i) => i * 7);
    expect(hex(leafHash(data))).toBe(hex(naiveLeafHash(data)));
    expect(hex(nodeHash(data, leafHash(data)))).toBe(hex(naiveNodeHash(data, naiveLeafHash(data))));
    expect(hashEquals(leafHash(data), naiveLeafHash(data))).toBe(true);
    expect(hashEquals(leafHash(data), data)).toBe(false);
    expect(hashEquals(data, data.subarray(1))).toBe(false);
  });
});
