import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { ERROR_NAMES, type ErrorName } from './api-error.js';

/** One invalid request field. */
@ApiSchema({ name: 'FieldError' })
export class FieldErrorDto {
  /**
   * The request field (dotted path for nested fields).
   * @example "url"
   */
  field!: string;

  /**
   * What is wrong with it.
   * @example "url must be an absolute http or https URL"
   */
  message!: string;
}

/**
 * An RFC 9457 problem-details body (`application/problem+json`): every error of the JSON
 * endpoints has this shape. The OpenAPI description of the `Problem` interface in problem.ts.
 */
@ApiSchema({ name: 'Problem' })
export class ProblemDto {
  /**
   * Always `about:blank`: the HTTP status and `error` say everything.
   * @example "about:blank"
   */
  @ApiProperty({ enum: ['about:blank'] })
  type!: 'about:blank';

  /**
   * The HTTP reason phrase of `status`.
   * @example "Bad Request"
   */
  title!: string;

  /**
   * The HTTP status code, repeated.
   * @example 400
   */
  status!: number;

  /** Stable machine-readable name of the error: branch on this, not on `detail`. */
  @ApiProperty({ enum: ERROR_NAMES, enumName: 'ErrorName', example: 'invalid_url' })
  error!: ErrorName;

  /**
   * A human-readable explanation of this occurrence.
   * @example "url must be an absolute http or https URL"
   */
  detail!: string;

  /** The invalid fields; present on validation failures only. */
  errors?: FieldErrorDto[];
}
