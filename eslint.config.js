import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * `import { z }` drags every zod locale and the JSON Schema converters into each Lambda bundle (459 KB against
 * 91 KB minified, docs/benchmarks.md "Lean functions"); the namespace import tree-shakes.
 */
/** A test never skips (issue 12): a missing tool fails `npm test` up front (scripts/ensure-test-tools.mjs) instead. */
const noSkippedTests = [
  {
    selector:
      'MemberExpression[object.name=/^(describe|it|test)$/][property.name=/^(skip|skipIf|runIf|todo|only)$/]',
    message: 'No skipped, conditional or focused tests: every test runs on every machine.',
  },
  {
    selector: 'Identifier[name=/^[xf](describe|it|test)$/]',
    message: 'No skipped or focused tests: every test runs on every machine.',
  },
];

const zodNamespaceOnly = {
  selector:
    "ImportDeclaration[source.value='zod'][importKind='value'] > ImportSpecifier[imported.name='z'][importKind='value']",
  message: "Use `import * as z from 'zod'`: it tree-shakes, `{ z }` bundles all of zod.",
};

/** A handler names its route by area (`incidents.createIncident`), so the service it calls keeps its own name. */
const routesUnderNamespace = {
  selector: "ImportDeclaration[source.value=/shared\\/routes\\//] > ImportSpecifier[importKind='value']",
  message:
    "Import routes under their area's namespace: `import * as incidents from '.../shared/routes/incidents.js'`.",
};

const NO_AWS = {
  group: ['@aws-sdk/*', 'aws-cdk-lib', 'aws-cdk-lib/*'],
  message: 'Domain code never imports AWS.',
};

/**
 * Lambda bundles leave @aws-sdk/* external and esbuild hoists a static import of an external to the top of the
 * bundle, where it loads at init in every function that contains it: the SDK is reached through `await
 * import(...)` on first use (shared/store/dynamo.ts, shared/adapters/aws/lazy-sdk.ts), types only at the top.
 */
const SDK_ON_FIRST_USE = {
  group: ['@aws-sdk/*'],
  allowTypeImports: true,
  message:
    'Load the SDK on first use (documentSdk()/dynamoSdk(), or a lazy client): a value import loads it at init.',
};

const FORMAT_STAYS_BELOW = {
  group: ['**/store/*', '**/runtime/*', '**/services/*', '**/adapters/*', '**/ledger-writer/*'],
  message:
    'The ledger record format (shared/ledger) is pure: the store and the writer build on it, not the reverse.',
};

export default tseslint.config(
  {
    // clients/typescript/schema.d.ts is generated (npm run client:generate): typechecked, not linted.
    ignores: [
      'node_modules/**',
      'cdk.out/**',
      '.data/**',
      'coverage/**',
      '.tmp/**',
      'clients/typescript/schema.d.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
      'no-restricted-syntax': ['error', zodNamespaceOnly],
    },
  },
  {
    // Plain Node scripts (run before dependencies are installed, so no TypeScript).
    files: ['**/*.mjs'],
    languageOptions: { globals: { console: 'readonly', process: 'readonly' } },
  },
  {
    // Tests read untyped JSON response bodies.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      'no-restricted-syntax': ['error', zodNamespaceOnly, ...noSkippedTests],
    },
  },
  {
    // Lambda code: no SDK at init. (The embedded stack's DynamoDB Local set-up is not Lambda code.)
    files: ['shared/**/*.ts', 'functions/**/*.ts'],
    ignores: ['shared/adapters/local/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [SDK_ON_FIRST_USE] }] },
  },
  {
    files: ['functions/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', zodNamespaceOnly, routesUnderNamespace] },
  },
  {
    // Domain rules stay free of AWS: no SDK import below shared/domain or shared/ledger.
    files: ['shared/domain/**/*.ts', 'shared/ledger/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [NO_AWS] }] },
  },
  {
    // The record format sits below the store and the writer (format <- store <- writer): it imports neither.
    files: ['shared/ledger/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [NO_AWS, FORMAT_STAYS_BELOW] }] },
  },
);
