// Shared jest settings: TypeScript through @swc/jest (no TS JS API needed), workspace
// packages resolved to their sources so tests never need a build first.
const path = require('node:path');
const root = __dirname;
module.exports = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.(t|j|mj)s$': [
      '@swc/jest',
      { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } },
    ],
  },
  // meilisearch ships ESM only: let swc turn it into CommonJS for jest.
  transformIgnorePatterns: ['/node_modules/(?!(\\.pnpm/)?(meilisearch)[@/])'],
  moduleNameMapper: {
    '^@hub/([a-z-]+)$': path.join(root, 'packages/$1/src'),
    // @hub/client is ESM: its sources import each other as `./x.js`; jest reads the `.ts`.
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  globalSetup: path.join(root, 'packages/testing/global-setup.js'),
  globalTeardown: path.join(root, 'packages/testing/global-teardown.js'),
  testTimeout: 30000,
};
