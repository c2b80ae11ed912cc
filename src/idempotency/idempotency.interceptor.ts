import {
  applyDecorators,
  HttpStatus,
  Injectable,
  UseInterceptors,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants.js';
import { Reflector } from '@nestjs/core';
import { ApiHeader } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { from, lastValueFrom, type Observable } from 'rxjs';
import type { AuthenticatedRequest } from '../auth/auth.decorators.js';
import { ApiError } from '../common/errors/api-error.js';
import { checkIdempotencyKey, IdempotencyService, requestFingerprint } from './idempotency.service.js';

/** Set on an answer that is a stored one, replayed for a retry. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/**
 * Runs a creating route through `IdempotencyService` when the request carries an
 * `Idempotency-Key` header. Interceptors run after the guards (so the caller is known and a
 * rate-limited retry is refused before anything is looked up) and around the pipes and the
 * handler (so a validation failure is part of the stored answer).
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly idempotency: IdempotencyService,
    private readonly reflector: Reflector,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const key = checkIdempotencyKey(request.headers['idempotency-key']);
    if (key === undefined) return next.handle();
    const caller = request.principal?.kind === 'token' ? request.principal : undefined;
    // Keys are per account; an anonymous call has none to keep them in.
    if (!caller) throw ApiError.unauthorized('Idempotency-Key needs an API token');

    const reply = context.switchToHttp().getResponse<FastifyReply>();
    const status =
      this.reflector.get<number | undefined>(HTTP_CODE_METADATA, context.getHandler()) ?? HttpStatus.CREATED;
    const fingerprint = requestFingerprint(request.method, request.routeOptions.url ?? request.url, request.body);
    const answer = this.idempotency.execute(caller.accountId, key, fingerprint, async () => {
      const body: unknown = await lastValueFrom(next.handle());
      const location = reply.getHeader('location');
      return { status, body, location: typeof location === 'string' ? location : null };
    });
    return from(
      answer.then((result) => {
        void reply.status(result.status);
        if (result.replayed) {
          void reply.header(REPLAYED_HEADER, 'true');
          if (result.location) void reply.header('Location', result.location);
        }
        return result.body;
      }),
    );
  }
}

/**
 * Makes a creating route idempotent with an optional `Idempotency-Key` header, documented in
 * OpenAPI.
 */
export const Idempotent = () =>
  applyDecorators(
    UseInterceptors(IdempotencyInterceptor),
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      description:
        'Makes a retry safe (with a token): a repeat of this request with the same key and body within 24 hours ' +
        'answers exactly as the first call did (status and body, plus `Idempotent-Replayed: true`) and creates ' +
        'nothing. The same key with another body answers 422 `idempotency_key_reused`; while the first call ' +
        'still runs, 409 `idempotency_key_in_use`. 1 to 255 visible ASCII characters; use a random UUID.',
      // No example: Swagger UI would fill it in, and every "Try it out" would send the same key.
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7E]+$' },
    }),
  );
