import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Aws, CfnOutput, DefaultStackSynthesizer, Duration, RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import type { HttpApi, CfnApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  PriceClass,
  ResponseHeadersPolicy,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { OAuthScope, UserPoolClientIdentityProvider, type UserPool } from 'aws-cdk-lib/aws-cognito';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  type CfnBucket,
  type IBucket,
} from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { ClientAttributes } from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';
import type { Auth } from './auth.js';
import { acknowledge } from './nag.js';
import type { StageSettings } from './stage.js';

/** Where `vite build` writes the console (scripts/console-build.ts; bin/app.ts builds it when stale). */
export const CONSOLE_DIST = join(import.meta.dirname, '..', 'console', 'dist');
/** The console's path on its distribution (Vite's base): its files live under this prefix in the bucket. */
const BASE = 'console';

export interface ConsoleProps {
  stage: StageSettings;
  auth: Auth;
  /** The immutable bucket: review documents are shown in a frame from its presigned URLs. */
  documents: IBucket;
  /** Built console (index.html and assets). @default console/dist */
  distDir?: string;
}

/**
 * The web console in AWS (issue 16): a private S3 bucket (no public access, TLS only) behind CloudFront with
 * Origin Access Control, HTTPS only, a response headers policy (HSTS, a CSP without inline script, no
 * framing, nosniff, no referrer) and the single-page app's fallback to index.html. Cognito's hosted UI signs
 * users in: the user pool gets a domain and a public app client for the console (authorization code with PKCE,
 * no secret, callback and logout URLs on the distribution), whose id the API accepts as a token audience.
 * `deploy` then uploads the built console with a config.json naming the API, the issuer and the client, and
 * opens the API to the console's origin (CORS). Locally bin/local.ts serves the same files.
 */
export class Console extends Construct {
  readonly bucket: Bucket;
  readonly distribution: Distribution;
  /** `https://<distribution domain>`: the console's origin. */
  readonly origin: string;
  readonly url: string;
  private readonly settings: Record<string, unknown>;

  constructor(scope: Construct, id: string, props: ConsoleProps) {
    super(scope, id);
    const { stage, auth } = props;
    const pool: UserPool | undefined = auth.userPool;
    if (!pool) throw new Error("The console signs users in through the stack's Cognito user pool");
    const region = Stack.of(this).region;

    this.bucket = new Bucket(this, 'Site', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      encryption: BucketEncryption.S3_MANAGED,
      // Kept with the stack like every bucket of the service (its files are redeployed by each deploy).
      removalPolicy: RemovalPolicy.RETAIN,
    });
    acknowledge(
      this.bucket,
      'S1',
      'The site bucket holds the built console only (public code, replaced on each deploy); CloudFront reads it through Origin Access Control, and the API access logs record what users do.',
    );

    // Hosted UI at https://gls-<stage>-<account>.auth.<region>.amazoncognito.com (prefixes are global).
    const domain = pool.addDomain('ConsoleSignIn', {
      cognitoDomain: { domainPrefix: `gls-${stage.name}-${Aws.ACCOUNT_ID}` },
    });
    const issuer = `https://cognito-idp.${region}.amazonaws.com/${pool.userPoolId}`;
    const csp = [
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self'",
      // The API (execute-api, whatever its id: naming it would tie this policy to the API and the API's CORS
      // to the distribution in a cycle), the issuer's discovery and keys, and the hosted UI's token endpoint.
      `connect-src 'self' https://*.execute-api.${region}.amazonaws.com https://cognito-idp.${region}.amazonaws.com ${domain.baseUrl()}`,
      // Review documents: presigned GETs of the immutable bucket.
      `frame-src https://${props.documents.bucketRegionalDomainName}`,
      "object-src 'none'",
      "base-uri 'self'",
      "form-action 'self'",
      "frame-ancestors 'none'",
    ].join('; ');
    const headers = new ResponseHeadersPolicy(this, 'Headers', {
      comment: `Governance ledger console (${stage.name}): HSTS, CSP, no framing, nosniff, no referrer`,
      securityHeadersBehavior: {
        strictTransportSecurity: {
          accessControlMaxAge: Duration.days(730),
          includeSubdomains: true,
          preload: true,
          override: true,
        },
        contentSecurityPolicy: { contentSecurityPolicy: csp, override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        contentTypeOptions: { override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
      },
    });

    this.distribution = new Distribution(this, 'Distribution', {
      comment: `Governance ledger console (${stage.name})`,
      defaultRootObject: `${BASE}/index.html`,
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: headers,
        compress: true,
      },
      // A deep link (/console/review/jobs/…) is no object: S3 answers 403 (no ListBucket), CloudFront the app.
      errorResponses: [403, 404].map((httpStatus) => ({
        httpStatus,
        responseHttpStatus: 200,
        responsePagePath: `/${BASE}/index.html`,
        ttl: Duration.seconds(0),
      })),
      httpVersion: HttpVersion.HTTP2_AND_3,
      minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
      priceClass: PriceClass.PRICE_CLASS_100,
    });
    acknowledge(
      this.distribution,
      'CFR1',
      'Advisers and firms sign in from anywhere their firm operates; access is controlled by sign-in, not geography.',
    );
    acknowledge(
      this.distribution,
      'CFR2',
      'The distribution serves static files only; every API call is authenticated and throttled by the API itself. A firm may attach a WAF web ACL without code changes.',
    );
    acknowledge(
      this.distribution,
      'CFR3',
      'Static files only, the same for every user; who did what is recorded by the API (access logs, ledger).',
    );
    acknowledge(
      this.distribution,
      'CFR4',
      'The default CloudFront certificate (*.cloudfront.net) negotiates TLS 1.2+ with modern clients; a custom domain with its own certificate enforces TLSv1.2_2021 through minimumProtocolVersion.',
    );
    this.origin = `https://${this.distribution.distributionDomainName}`;
    this.url = `${this.origin}/${BASE}/`;

    const client = pool.addClient('ConsoleClient', {
      // A browser app: public, no secret; Cognito requires PKCE's code_verifier when a challenge was sent.
      generateSecret: false,
      authFlows: {},
      oAuth: {
        flows: { authorizationCodeGrant: true },
        scopes: [OAuthScope.OPENID, OAuthScope.EMAIL, OAuthScope.PROFILE],
        callbackUrls: [`${this.url}callback`],
        logoutUrls: [this.url],
      },
      supportedIdentityProviders: [UserPoolClientIdentityProvider.COGNITO],
      preventUserExistenceErrors: true,
      idTokenValidity: Duration.hours(1),
      accessTokenValidity: Duration.hours(1),
      refreshTokenValidity: Duration.hours(12),
      writeAttributes: new ClientAttributes().withStandardAttributes({ email: true, fullname: true }),
    });
    auth.acceptAudience(client.userPoolClientId);

    this.settings = {
      issuer,
      discoveryUrl: `${issuer}/.well-known/openid-configuration`,
      clientId: client.userPoolClientId,
      redirectUri: `${this.url}callback`,
      postLogoutRedirectUri: this.url,
      // Cognito's discovery document names no end-session endpoint.
      logoutUrl: `${domain.baseUrl()}/logout`,
      localDevelopment: false,
    };
    new CfnOutput(Stack.of(this), 'ConsoleUrl', { description: 'The web console', value: this.url });
  }

  /**
   * Uploads the built console with its config.json (the API URL known now) and lets the console's origin call
   * the API from the browser (CORS on the HTTP API: the console's headers, no credentials mode).
   */
  deploy(props: { apiUrl: string; httpApi: HttpApi; distDir?: string }): BucketDeployment {
    const dist = props.distDir ?? CONSOLE_DIST;
    if (!existsSync(join(dist, 'index.html')))
      throw new Error(`The console is not built (${dist}): run npx tsx scripts/console-build.ts`);
    const cfnApi = props.httpApi.node.defaultChild as CfnApi;
    cfnApi.corsConfiguration = {
      allowOrigins: [this.origin],
      allowMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
      allowHeaders: ['authorization', 'content-type', 'idempotency-key'],
      // link: the plain-array lists' `Link: <…>; rel="next"`, which the console follows to their next items.
      exposeHeaders: ['retry-after', 'idempotent-replayed', 'location', 'link'],
      maxAge: 3600,
    };
    const deployment = new BucketDeployment(this, 'Deploy', {
      destinationBucket: this.bucket,
      destinationKeyPrefix: `${BASE}/`,
      sources: [
        Source.asset(dist),
        Source.jsonData('config.json', { apiBaseUrl: props.apiUrl, ...this.settings }),
      ],
      distribution: this.distribution,
      distributionPaths: ['/*'],
      memoryLimit: 512,
    });
    this.acknowledgeDeploymentHandler();
    return deployment;
  }

  /** cdk-nag's findings on BucketDeployment's handler, a CDK singleton at the stack's root. */
  private acknowledgeDeploymentHandler(): void {
    const stack = Stack.of(this);
    const pseudo = (value: string, name: string) => (Token.isUnresolved(value) ? `<AWS::${name}>` : value);
    const assets = `cdk-${DefaultStackSynthesizer.DEFAULT_QUALIFIER}-assets-${pseudo(stack.account, 'AccountId')}-${pseudo(stack.region, 'Region')}`;
    const copying =
      "CDK's BucketDeployment handler copies the console from the CDK assets bucket into the site bucket and prunes old files: the S3 action groups and object wildcards are CDK's own, limited to those two buckets.";
    for (const handler of stack.node.children.filter((c) =>
      c.node.id.startsWith('Custom::CDKBucketDeployment'),
    )) {
      acknowledge(
        handler,
        'IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        "CDK's BucketDeployment handler logs through the basic execution policy; it runs at deploy time only.",
      );
      for (const finding of [
        'Resource::*',
        'Action::s3:GetBucket*',
        'Action::s3:GetObject*',
        'Action::s3:List*',
        'Action::s3:Abort*',
        'Action::s3:DeleteObject*',
        `Resource::arn:aws:s3:::${assets}/*`,
        `Resource::arn:<AWS::Partition>:s3:::${assets}/*`,
        `Resource::<${stack.getLogicalId(this.bucket.node.defaultChild as CfnBucket)}.Arn>/*`,
      ])
        acknowledge(handler, `IAM5[${finding}]`, copying);
      acknowledge(
        handler,
        'L1',
        "CDK's BucketDeployment handler runtime is chosen by aws-cdk-lib, upgraded with it.",
      );
    }
  }
}
