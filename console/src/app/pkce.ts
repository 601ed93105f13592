import { sha256 } from '@noble/hashes/sha2.js';

/**
 * The PKCE S256 challenge, BASE64URL(SHA-256(verifier)), computed without WebCrypto: `crypto.subtle` (which
 * oauth4webapi's calculatePKCECodeChallenge uses) exists in secure contexts only, and a local console opened at
 * a host name on the network over plain HTTP is not one (localhost and 127.0.0.1 are).
 */
export function pkceChallenge(verifier: string): string {
  const digest = sha256(new TextEncoder().encode(verifier));
  let binary = '';
  for (const byte of digest) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
