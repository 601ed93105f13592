import { Duration, Fn, Lazy, Stack } from 'aws-cdk-lib';
import {
  AccountRecovery,
  ClientAttributes,
  Mfa,
  StringAttribute,
  UserPool,
  type UserPoolClient,
} from 'aws-cdk-lib/aws-cognito';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { ENV } from '../shared/runtime/config.js';
import { acknowledge } from './nag.js';
import type { StageSettings } from './stage.js';

/** How bearer tokens are verified: the values the runtime reads as OIDC_* variables. */
export interface OidcSettings {
  issuer: string;
  audience: string;
  jwksUrl: string;
  /** Claim carrying the firm id. */
  firmClaim: string;
}

/** The custom attribute that ties a Cognito user to a firm, and the ID-token claim carrying it. */
const FIRM_ATTRIBUTE = 'firm_id';
export const FIRM_CLAIM = `custom:${FIRM_ATTRIBUTE}`;

export interface AuthProps {
  stage: StageSettings;
  /** Verify tokens of this issuer instead of creating a Cognito user pool. */
  external?: OidcSettings;
}

/**
 * Who signs users' tokens: by default a Cognito user pool of this stack, or any OIDC issuer given in
 * `external`. Either way functions learn the issuer through bindVerifier; nothing else about users lives here
 * (users, roles and activation are the service's own data in the main table).
 */
export class Auth extends Construct {
  readonly oidc: OidcSettings;
  readonly userPool?: UserPool;
  readonly client?: UserPoolClient;
  /** App clients whose ID tokens the API accepts (their ids are the tokens' `aud`). */
  private readonly audiences: string[] = [];

  constructor(scope: Construct, id: string, props: AuthProps) {
    super(scope, id);
    if (props.external) {
      this.oidc = props.external;
      return;
    }
    const { stage } = props;
    this.userPool = new UserPool(this, 'UserPool', {
      // Firm admins invite users through ledgerctl and the API; nobody signs themselves up.
      selfSignUpEnabled: false,
      signInAliases: { email: true },
      autoVerify: { email: true },
      // A changed e-mail takes effect only once verified, so a token never carries an unproven address.
      keepOriginal: { email: true },
      customAttributes: { [FIRM_ATTRIBUTE]: new StringAttribute({ mutable: false, minLen: 1, maxLen: 64 }) },
      // Production users must enrol a TOTP app; other stages let testers sign in with a password alone.
      mfa: stage.production ? Mfa.REQUIRED : Mfa.OPTIONAL,
      passwordPolicy: {
        minLength: 12,
        requireLowercase: true,
        requireUppercase: true,
        requireDigits: true,
        requireSymbols: true,
        tempPasswordValidity: Duration.days(3),
      },
      mfaSecondFactor: { otp: true, sms: false },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      deletionProtection: stage.production,
      removalPolicy: stage.removalPolicy,
    });
    acknowledge(
      this.userPool,
      'COG8',
      'The Plus feature plan (threat protection) is priced per monthly active user; production requires TOTP MFA and a 12-character password policy, and a firm may switch the plan on without code changes.',
    );
    if (!stage.production)
      acknowledge(
        this.userPool,
        'COG2',
        'Non-production stages hold test users only; MFA is optional there and required in prod.',
      );
    this.client = this.userPool.addClient('ApiClient', {
      // A public client signing in with SRP; no hosted UI, so no OAuth flows or callback URLs to abuse.
      generateSecret: false,
      authFlows: { userSrp: true },
      disableOAuth: true,
      preventUserExistenceErrors: true,
      // Users may edit their profile, never the firm they belong to.
      writeAttributes: new ClientAttributes().withStandardAttributes({ email: true, fullname: true }),
    });
    const issuer = `https://cognito-idp.${Stack.of(this).region}.amazonaws.com/${this.userPool.userPoolId}`;
    this.audiences.push(this.client.userPoolClientId);
    this.oidc = {
      issuer,
      // Cognito ID tokens carry the app client id as `aud` (access tokens do not have `aud`), along with
      // the e-mail and custom attributes the service reads: clients send the ID token. Several clients (the
      // API's, the web console's) make a comma-separated list, resolved once every client is known.
      audience: Lazy.string({
        produce: () => (this.audiences.length === 1 ? this.audiences[0]! : Fn.join(',', this.audiences)),
      }),
      jwksUrl: `${issuer}/.well-known/jwks.json`,
      firmClaim: FIRM_CLAIM,
    };
  }

  /** The API also accepts ID tokens issued to this app client of the pool (the web console's, lib/console.ts). */
  acceptAudience(clientId: string): void {
    if (!this.userPool) throw new Error("Only the stack's own user pool has app clients to accept");
    this.audiences.push(clientId);
  }

  /** A function that accepts users' bearer tokens learns whom to trust. */
  bindVerifier(fn: LambdaFunction): void {
    fn.addEnvironment(ENV.oidcIssuer, this.oidc.issuer);
    fn.addEnvironment(ENV.oidcAudience, this.oidc.audience);
    fn.addEnvironment(ENV.oidcJwksUrl, this.oidc.jwksUrl);
    fn.addEnvironment(ENV.oidcFirmClaim, this.oidc.firmClaim);
  }
}
