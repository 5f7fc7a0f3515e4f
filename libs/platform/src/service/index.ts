export * from './health';
export * from './lifecycle';
export * from './metrics';
export * from './module';
export * from './start';
