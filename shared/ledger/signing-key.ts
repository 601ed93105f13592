import type { Signer } from '../ports/signer.js';

const cache = new WeakMap<Signer, Promise<string>>();

/** The signer's public key as base64 DER SubjectPublicKeyInfo, fetched once per signer. */
export function publicKeyBase64(signer: Signer): Promise<string> {
  let value = cache.get(signer);
  if (!value) {
    value = signer.publicKeySpki().then((spki) => Buffer.from(spki).toString('base64'));
    value.catch(() => cache.delete(signer));
    cache.set(signer, value);
  }
  return value;
}
