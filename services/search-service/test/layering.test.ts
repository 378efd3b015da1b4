import path from 'node:path';
import { importCycles, layerViolations } from '@hub/testing';

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
const SRC = path.join(__dirname, '..', 'src');

test('No import in src runs up or sideways across the layers', () => {
  expect(layerViolations(SRC, LAYERS)).toEqual([]);
});

test('No two modules in src import each other, directly or around a cycle', () => {
  expect(importCycles(SRC)).toEqual([]);
});
