export * from './feed';
