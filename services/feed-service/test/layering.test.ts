import path from 'node:path';
import { describeLayering } from '@hub/testing';

/** The feed-service's layers, top to bottom (the README's "Layout" draws the same picture). */
const LAYERS = [
  ['main', 'migrate', 'cli'],
  ['app'],
  ['http'],
  ['domain'],
  ['websub', 'cache', 'render'],
  ['store'],
  ['config', 'migrations'],
];
describeLayering(path.join(__dirname, '..', 'src'), LAYERS);
