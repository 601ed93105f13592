/** Three projects: pure unit tests, HTTP integration tests against the embedded stack, and CDK assertions. */
const swc = [
  '@swc/jest',
  {
    jsc: { parser: { syntax: 'typescript' }, target: 'es2023' },
    module: { type: 'es6' },
    sourceMaps: 'inline',
  },
];

const common = {
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': swc },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testEnvironment: 'node',
  setupFiles: ['<rootDir>/test/support/quiet-logs.ts'],
  setupFilesAfterEnv: ['<rootDir>/test/support/settle-background.ts'],
};

export default {
  // Integration tests spawn ledgerctl and wait for workers; CDK synthesis takes seconds. Applies to all projects.
  testTimeout: 120000,
  // Two files at a time on a 2-core machine: 928 s in all instead of 1,333 s in band (docs/architecture.md §7n).
  maxWorkers: 2,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      globalSetup: '<rootDir>/test/integration/global-setup.ts',
      globalTeardown: '<rootDir>/test/integration/global-teardown.ts',
    },
    {
      ...common,
      displayName: 'infra',
      testMatch: ['<rootDir>/test/infra/**/*.test.ts'],
      // The stack deploys the built console (lib/console.ts): build it when stale, as npm test's pretest does.
      globalSetup: '<rootDir>/test/infra/global-setup.ts',
    },
  ],
};
