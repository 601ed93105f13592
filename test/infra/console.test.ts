import type { Template } from 'aws-cdk-lib/assertions';
import { synth } from './synth.js';
import { onlyResource, referencedId, resources } from './template-graph.js';

/**
 * The web console in AWS (issue 16, lib/console.ts): a private bucket behind CloudFront with Origin Access
 * Control, HTTPS only, security headers, the SPA fallback, the built console deployed with a generated
 * config.json, and Cognito's hosted UI with a code + PKCE app client whose tokens the API accepts.
 */
describe('web console', () => {
  let template: Template;
  beforeAll(() => {
    template = synth();
  });

  const siteBucket = () => {
    const [id] = onlyResource(template, 'AWS::CloudFront::OriginAccessControl');
    const [, distribution] = onlyResource(template, 'AWS::CloudFront::Distribution');
    const origin = (distribution.Properties.DistributionConfig as any).Origins[0];
    expect(referencedId(origin.OriginAccessControlId)).toBe(id);
    return referencedId(origin.DomainName);
  };

  it('keeps the files in a private, TLS-only bucket that only the distribution reads', () => {
    const bucketId = siteBucket();
    const bucket = template.toJSON().Resources[bucketId];
    expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    const [, policy] = onlyResource(template, 'AWS::S3::BucketPolicy', { Bucket: { Ref: bucketId } });
    const statements = (policy.Properties.PolicyDocument as any).Statement as any[];
    expect(statements).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    );
    const reads = statements.filter(
      (s) => s.Effect === 'Allow' && [s.Action].flat().includes('s3:GetObject'),
    );
    expect(reads).toHaveLength(1);
    expect(reads[0].Principal).toEqual({ Service: 'cloudfront.amazonaws.com' });
    expect(reads[0].Condition.StringEquals['AWS:SourceArn']).toBeDefined();
  });

  it('serves HTTPS only with the SPA fallback to index.html under /console/', () => {
    const [, distribution] = onlyResource(template, 'AWS::CloudFront::Distribution');
    const config = distribution.Properties.DistributionConfig as any;
    expect(config.DefaultCacheBehavior.ViewerProtocolPolicy).toBe('https-only');
    expect(config.DefaultRootObject).toBe('console/index.html');
    expect(config.CustomErrorResponses).toEqual(
      expect.arrayContaining(
        [403, 404].map((code) =>
          expect.objectContaining({
            ErrorCode: code,
            ResponseCode: 200,
            ResponsePagePath: '/console/index.html',
          }),
        ),
      ),
    );
  });

  it('sends HSTS, a CSP without inline script, no framing, nosniff and no referrer', () => {
    const [policyId, policy] = onlyResource(template, 'AWS::CloudFront::ResponseHeadersPolicy');
    const [, distribution] = onlyResource(template, 'AWS::CloudFront::Distribution');
    expect(
      referencedId(
        (distribution.Properties.DistributionConfig as any).DefaultCacheBehavior.ResponseHeadersPolicyId,
      ),
    ).toBe(policyId);
    const security = (policy.Properties.ResponseHeadersPolicyConfig as any).SecurityHeadersConfig;
    expect(security.StrictTransportSecurity).toMatchObject({
      AccessControlMaxAgeSec: 63072000,
      IncludeSubdomains: true,
    });
    expect(security.FrameOptions.FrameOption).toBe('DENY');
    expect(security.ContentTypeOptions.Override).toBe(true);
    expect(security.ReferrerPolicy.ReferrerPolicy).toBe('no-referrer');
    const csp = JSON.stringify(security.ContentSecurityPolicy.ContentSecurityPolicy);
    expect(csp).toContain("default-src 'self'; script-src 'self'; style-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
    // connect-src: the API and Cognito (the issuer and the hosted UI's token endpoint).
    expect(csp).toContain('https://*.execute-api.eu-west-2.amazonaws.com');
    expect(csp).toContain('https://cognito-idp.eu-west-2.amazonaws.com');
    expect(csp).toContain('.auth.eu-west-2.amazoncognito.com');
  });

  it('deploys the built console with a config.json naming the API, the issuer and the console client', () => {
    const [, deployment] = onlyResource(template, 'Custom::CDKBucketDeployment');
    const props = deployment.Properties as any;
    expect(referencedId(props.DestinationBucketName)).toBe(siteBucket());
    expect(props.DestinationBucketKeyPrefix).toBe('console/');
    expect(props.DistributionPaths).toEqual(['/*']);
    // Two sources: the console's files and the generated config.json, whose markers are filled at deploy.
    expect(props.SourceObjectKeys).toHaveLength(2);
    const markers = JSON.stringify(props.SourceMarkers);
    const [consoleClientId] = onlyResource(template, 'AWS::Cognito::UserPoolClient', {
      AllowedOAuthFlows: ['code'],
    });
    expect(markers).toContain(consoleClientId);
    expect(markers).toMatch(/HttpApi/);
    expect(markers).toMatch(/UserPool/);
  });

  it('gives Cognito a hosted UI domain and a public code + PKCE client calling back to the distribution', () => {
    onlyResource(template, 'AWS::Cognito::UserPoolDomain');
    const [, client] = onlyResource(template, 'AWS::Cognito::UserPoolClient', {
      AllowedOAuthFlows: ['code'],
    });
    expect(client.Properties).toMatchObject({
      GenerateSecret: false,
      AllowedOAuthFlowsUserPoolClient: true,
      AllowedOAuthScopes: expect.arrayContaining(['openid', 'email']),
      SupportedIdentityProviders: ['COGNITO'],
    });
    expect(client.Properties.AllowedOAuthFlows).toEqual(['code']);
    expect(client.Properties.WriteAttributes).not.toContain('custom:firm_id');
    const [distributionId] = onlyResource(template, 'AWS::CloudFront::Distribution');
    const callback = JSON.stringify(client.Properties.CallbackURLs);
    expect(callback).toContain(distributionId);
    expect(callback).toContain('/console/callback');
    expect(JSON.stringify(client.Properties.LogoutURLs)).toContain(distributionId);
  });

  it('opens the API to the console origin only (CORS)', () => {
    const [, api] = onlyResource(template, 'AWS::ApiGatewayV2::Api');
    const cors = api.Properties.CorsConfiguration as any;
    expect(cors.AllowOrigins).toHaveLength(1);
    expect(JSON.stringify(cors.AllowOrigins)).toContain('DomainName');
    expect(cors.AllowHeaders).toEqual(expect.arrayContaining(['authorization', 'content-type']));
    // The console reads the plain-array lists' Link header (rel="next") across origins.
    expect(cors.ExposeHeaders).toEqual(expect.arrayContaining(['link', 'location']));
    expect(cors.AllowCredentials).toBeUndefined();
  });

  it('is absent with an external OIDC issuer (no Cognito hosted UI to sign in with)', () => {
    const external = synth({
      oidc: {
        issuer: 'https://id.example.com',
        audience: 'ledger-api',
        jwksUrl: 'https://id.example.com/keys',
        firmClaim: 'firm',
      },
    });
    expect(Object.keys(resources(external, 'AWS::CloudFront::Distribution'))).toHaveLength(0);
  });
});
