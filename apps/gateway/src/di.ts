/** Nest injection tokens of the gateway's plain values. */
export const GATEWAY_CONFIG = Symbol('GATEWAY_CONFIG');
export const LOGGER = Symbol('LOGGER');
export { CLOCK } from '@dominoes/platform';
