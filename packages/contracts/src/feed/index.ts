export * from './categories';
export * from './fields';
export * from './media-types';
export * from './errors';
export * from './check-order';
