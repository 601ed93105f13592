import { Match, type Template } from 'aws-cdk-lib/assertions';
import { ROUTES } from '../../shared/routes.js';
import { ENV } from '../../shared/runtime/config.js';
import { synth } from './synth.js';
import { lambdaFunction, onlyResource, routeFunctionId } from './template-graph.js';

const authenticated = ROUTES.find((route) => route.auth.kind !== 'public')!;
const authenticatedKey = `${authenticated.method} ${authenticated.path}`;

/** The API's SRP client (no OAuth flows) and the web console's code-flow client. */
const apiClient = (template: Template) =>
  onlyResource(template, 'AWS::Cognito::UserPoolClient', {
    ExplicitAuthFlows: Match.arrayWith(['ALLOW_USER_SRP_AUTH']),
  });
const consoleClient = (template: Template) =>
  onlyResource(template, 'AWS::Cognito::UserPoolClient', { AllowedOAuthFlows: ['code'] });

describe('Cognito user pool (default issuer)', () => {
  let template: Template;
  beforeAll(() => {
    template = synth();
  });

  it('signs users in by e-mail, admin-created only, with an immutable firm attribute', () => {
    const [, pool] = onlyResource(template, 'AWS::Cognito::UserPool');
    expect(pool.Properties).toMatchObject({
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      UsernameAttributes: ['email'],
    });
    expect(pool.Properties.Schema).toContainEqual(
      expect.objectContaining({ Name: 'firm_id', AttributeDataType: 'String', Mutable: false }),
    );
  });

  it('has a public SRP client that cannot write the firm attribute', () => {
    const [, client] = apiClient(template);
    expect(client.Properties.GenerateSecret).toBe(false);
    expect(client.Properties.ExplicitAuthFlows).toContain('ALLOW_USER_SRP_AUTH');
    expect(client.Properties.AllowedOAuthFlows).toBeUndefined();
    expect(client.Properties.WriteAttributes).not.toContain('custom:firm_id');
  });

  it('tells authenticated functions to trust the pool', () => {
    const [poolId] = onlyResource(template, 'AWS::Cognito::UserPool');
    const [clientId] = apiClient(template);
    const [consoleClientId] = consoleClient(template);
    const issuer = { 'Fn::Join': ['', ['https://cognito-idp.eu-west-2.amazonaws.com/', { Ref: poolId }]] };
    const variables = lambdaFunction(template, routeFunctionId(template, authenticatedKey)).Properties
      .Environment.Variables;
    expect(variables).toMatchObject({
      [ENV.oidcIssuer]: issuer,
      // The API's client and the web console's (lib/console.ts): either's ID tokens are accepted.
      [ENV.oidcAudience]: { 'Fn::Join': [',', [{ Ref: clientId }, { Ref: consoleClientId }]] },
      [ENV.oidcJwksUrl]: {
        'Fn::Join': [
          '',
          ['https://cognito-idp.eu-west-2.amazonaws.com/', { Ref: poolId }, '/.well-known/jwks.json'],
        ],
      },
      [ENV.oidcFirmClaim]: 'custom:firm_id',
    });
  });
});

describe('external OIDC issuer', () => {
  const oidc = {
    issuer: 'https://id.example.com',
    audience: 'ledger-api',
    jwksUrl: 'https://id.example.com/keys',
    firmClaim: 'https://example.com/firm',
  };
  let template: Template;
  beforeAll(() => {
    template = synth({ oidc });
  });

  it('replaces the user pool', () => {
    template.resourceCountIs('AWS::Cognito::UserPool', 0);
    template.resourceCountIs('AWS::Cognito::UserPoolClient', 0);
  });

  it('is what authenticated functions trust', () => {
    const variables = lambdaFunction(template, routeFunctionId(template, authenticatedKey)).Properties
      .Environment.Variables;
    expect(variables).toMatchObject({
      [ENV.oidcIssuer]: oidc.issuer,
      [ENV.oidcAudience]: oidc.audience,
      [ENV.oidcJwksUrl]: oidc.jwksUrl,
      [ENV.oidcFirmClaim]: oidc.firmClaim,
    });
  });
});
