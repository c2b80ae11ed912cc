/**
 * The shared command connection (`Redis | null`: null when REDIS_URL is unset). Used for rate
 * limit counters and for publishing; never put into subscriber mode.
 */
export const REDIS_CLIENT = Symbol('REDIS_CLIENT');

/** The connection that only subscribes (`Redis | null`); Redis forbids other commands on it. */
export const REDIS_SUBSCRIBER = Symbol('REDIS_SUBSCRIBER');
