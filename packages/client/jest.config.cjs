// Pure package: no database, so the preset's PostgreSQL global setup is left out. The sources
// import each other with `.js` (ESM output); the preset maps those to the `.ts` files.
module.exports = {
  ...require('../../jest.preset.js'),
  rootDir: __dirname,
  globalSetup: undefined,
  globalTeardown: undefined,
};
