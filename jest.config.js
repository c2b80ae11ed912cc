// Jest runs the TypeScript sources as native ES modules (NestJS 12 is ESM-only), compiled by SWC.
// Run with NODE_OPTIONS=--experimental-vm-modules (see the npm "test" script).

/**
 * CommonJS dependencies that `require()` an ESM-only package fail under Jest before Node.js 24.9
 * (22; Node itself allows it). There Jest compiles just those packages to CommonJS instead; on
 * 24.9+ it requires the ES modules natively (see test/support/load-cjs-nest-packages-first.ts).
 */
const ESM_ONLY_REQUIRED_FROM_CJS = [
  'content-disposition',
  'cookie',
  // @nestjs/throttler ships CommonJS only and requires these two (ESM-only since Nest 12). Its
  // requires get a CommonJS copy; everything imported as ESM still uses the one ESM instance.
  '@nestjs/common',
  '@nestjs/core',
];

/** @type {import('jest').Config} */
const base = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { swcrc: true }],
    [`/node_modules/(${ESM_ONLY_REQUIRED_FROM_CJS.join('|')})/.+\\.js$`]: [
      '@swc/jest',
      { swcrc: false, module: { type: 'commonjs' } },
    ],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_ONLY_REQUIRED_FROM_CJS.join('|')})/)`],
  // Sources import siblings as './x.js' (NodeNext); map them back to the .ts file.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  // The SQLite writer's worker thread imports .ts files: it needs the loader (see the file).
  setupFiles: ['<rootDir>/test/support/thread-loader.ts', '<rootDir>/test/support/load-cjs-nest-packages-first.ts'],
};

/**
 * Four projects. Specs beside their source are `unit` when they need nothing but the process
 * (`*.spec.ts`) and `integration` when they start servers, Redis or databases of their own
 * (`*.integration.spec.ts`, with the specs under test/ that do the same); both run once. The
 * end-to-end specs (`*.e2e-spec.ts`) run twice, on a fresh SQLite and a fresh PostgreSQL database.
 */
/** @type {import('jest').Config} */
export default {
  testTimeout: 60000,
  projects: [
    {
      ...base,
      displayName: 'unit',
      testMatch: ['<rootDir>/src/**/*.spec.ts'],
      testPathIgnorePatterns: ['/node_modules/', '\\.integration\\.spec\\.ts$'],
    },
    {
      ...base,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/**/*.spec.ts', '<rootDir>/src/**/*.integration.spec.ts'],
    },
    {
      ...base,
      displayName: 'sqlite',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      setupFiles: [...base.setupFiles, '<rootDir>/test/support/use-sqlite.ts'],
    },
    {
      ...base,
      displayName: 'postgresql',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      setupFiles: [...base.setupFiles, '<rootDir>/test/support/use-postgresql.ts'],
    },
  ],
};
