import { hash } from 'node:crypto';
import type { EvidenceCrypto } from './evidence-verify.js';
import { verifySignature } from './verify.js';

/** The evidence verifier's crypto in Node: the service's own SHA-256 and signature check (shared/ledger/verify.ts). */
export const nodeEvidenceCrypto: EvidenceCrypto = {
  sha256Hex: async (data) => hash('sha256', data, 'hex'),
  verifySignature: async (message, signature, publicKey) => verifySignature(message, signature, publicKey),
};
