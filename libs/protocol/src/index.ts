export * from './primitives';
export * from './errors';
export * from './views';
export * from './messages';
export * from './parse';
export * from './internal';
export * from './routing';
export * from './client';
export { renderProtocolDoc } from './protocol-doc';
