import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { exportJWK, generateKeyPair, importJWK, SignJWT, type JWK } from 'jose';

/**
 * The local stack's OIDC issuer: an ES256 key pair kept in DATA_DIR. The server publishes the public JWKS;
 * `ledgerctl token` signs tokens with the private key. Production uses Cognito (or any OIDC issuer).
 */
export class DevIssuer {
  private constructor(
    private readonly privateJwk: JWK,
    readonly publicJwk: JWK,
  ) {}

  static async open(keyFile: string): Promise<DevIssuer> {
    if (!existsSync(keyFile)) {
      const { privateKey } = await generateKeyPair('ES256', { extractable: true });
      const jwk = await exportJWK(privateKey);
      jwk.kid = `dev-${Date.now().toString(36)}`;
      jwk.alg = 'ES256';
      mkdirSync(dirname(keyFile), { recursive: true });
      try {
        writeFileSync(keyFile, JSON.stringify(jwk), { mode: 0o600, flag: 'wx' });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
    const privateJwk = JSON.parse(readFileSync(keyFile, 'utf8')) as JWK;
    const { d: _d, ...publicJwk } = privateJwk;
    return new DevIssuer(privateJwk, { ...publicJwk, use: 'sig' });
  }

  jwks(): { keys: JWK[] } {
    return { keys: [this.publicJwk] };
  }

  async mint(options: {
    issuer: string;
    audience: string;
    subject: string;
    email: string;
    claims: Record<string, unknown>;
    ttlSeconds: number;
  }): Promise<string> {
    const key = await importJWK(this.privateJwk, 'ES256');
    return new SignJWT({ email: options.email, ...options.claims })
      .setProtectedHeader({ alg: 'ES256', kid: this.privateJwk.kid!, typ: 'JWT' })
      .setIssuer(options.issuer)
      .setAudience(options.audience)
      .setSubject(options.subject)
      .setIssuedAt()
      .setExpirationTime(`${options.ttlSeconds}s`)
      .sign(key);
  }
}
