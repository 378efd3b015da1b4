import path from 'node:path';
import { describeLayering } from '@hub/testing';

/** The search-service's layers, top to bottom (the README's "Layout" draws the same picture). */
const LAYERS = [
  ['main', 'migrate', 'cli'],
  ['compose'],
  ['app'],
  ['admin'],
  ['http'],
  ['domain'],
  ['thumbnails'],
  ['index'],
  ['store'],
  ['config', 'migrations'],
];
describeLayering(path.join(__dirname, '..', 'src'), LAYERS);
