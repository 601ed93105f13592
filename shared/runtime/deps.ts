import type { DocumentDb, TableNames } from '../store/dynamo.js';
import type { Clock } from '../ports/clock.js';
import type { ObjectStore } from '../ports/object-store.js';
import type { Queue } from '../ports/queue.js';
import type { NoteSigner } from '../ports/note-signer.js';
import type { Signer } from '../ports/signer.js';
import type { Dependency } from '../errors.js';

/**
 * A composition root's own way of asking a dependency "are you there?" for GET /health (issue 32), where the
 * default (shared/services/health.ts) would not ask it: the KMS key's public key uncached, the SQS queue, the
 * local queue's fault switch.
 */
export type DependencyProbes = Partial<Record<Dependency, () => Promise<unknown>>>;

export interface OidcConfig {
  issuer: string;
  audience: string;
  jwksUrl: string;
  /** Claim carrying the firm id (a Cognito custom attribute in AWS). */
  firmClaim: string;
}

/** Everything a handler or worker needs, chosen once by a composition root (AWS or local). */
export interface Deps {
  db: DocumentDb;
  tables: TableNames;
  /** The signer of the first key (the key a new stack starts with); `signerFor` reaches every key. */
  signer: Signer;
  /**
   * The signer of a key of the signing-key history by its key id (KMS key ARN, `local:<fingerprint prefix>`),
   * one per key id, behind the same Sign limits (docs/architecture.md §5, "Signing keys").
   */
  signerFor(keyId: string): Signer;
  /**
   * The Ed25519 checkpoint key (issue 31), behind the same Sign limits; absent in tools that never sign a
   * checkpoint (ledgerctl).
   */
  noteSigner?: NoteSigner;
  objects: ObjectStore;
  queue: Queue;
  clock: Clock;
  oidc: OidcConfig;
  /** Health probes of this root, in place of the defaults (shared/services/health.ts). */
  probes?: DependencyProbes;
}

let current: Deps | undefined;
let factory: (() => Deps) | undefined;

/** The embedded stack installs its local dependencies before serving. */
export function installDeps(deps: Deps): void {
  current = deps;
}

/** Lambda entry points register the AWS factory; it runs once per cold start, on first use. */
export function registerDepsFactory(create: () => Deps): void {
  factory = create;
}

export function getDeps(): Deps {
  if (!current) {
    if (!factory)
      throw new Error('No dependencies installed: call installDeps() or registerDepsFactory() first');
    current = factory();
  }
  return current;
}
