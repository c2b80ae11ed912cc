import { SetMetadata } from '@nestjs/common';

export const ANONYMOUS_CREATION = 'shortlink:anonymous-creation';

/**
 * Marks a route that creates links without a token (`GET /api/s`, `POST /api/links`). All such
 * calls from one client IP share one counter (RATE_LIMIT_ANONYMOUS per window), whichever of
 * the routes they hit; token calls on the same route count against the token instead.
 */
export const AnonymousCreation = () => SetMetadata(ANONYMOUS_CREATION, true);
