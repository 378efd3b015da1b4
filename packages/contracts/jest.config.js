// Pure package: no database, so the preset's PostgreSQL global setup is left out.
module.exports = {
  ...require('../../jest.preset.js'),
  rootDir: __dirname,
  globalSetup: undefined,
  globalTeardown: undefined,
};
