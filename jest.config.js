// Jest runs the TypeScript sources as native ES modules (NestJS 12 is ESM-only), compiled by SWC.
/**
 * CommonJS dependencies that `require()` an ESM-only package fail under Jest on Node 20 (Node
 * itself allows it). Jest compiles just those packages to CommonJS instead.
 */
const ESM_ONLY_REQUIRED_FROM_CJS = ['content-disposition', 'cookie'];

/** @type {import('jest').Config} */
export default {
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
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.e2e-spec.ts', '<rootDir>/test/**/*.spec.ts'],
  testTimeout: 60000,
};
