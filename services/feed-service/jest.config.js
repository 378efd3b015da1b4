const preset = require('../../jest.preset.js');
module.exports = {
  ...preset,
  rootDir: __dirname,
  moduleNameMapper: {
    ...preset.moduleNameMapper,
    // @hub/client is ESM: its sources import each other as `./x.js`; jest reads the `.ts`.
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
};
