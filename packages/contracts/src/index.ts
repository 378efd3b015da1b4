export * from './feed';
export * from './search';
