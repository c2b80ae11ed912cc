import { Controller, Get, Header, Query, UseFilters } from '@nestjs/common';
import { ApiOkResponse, ApiProduces, ApiQuery, ApiTags } from '@nestjs/swagger';
import { Public } from '../auth/auth.decorators.js';
import { ApiPlainTextErrorResponses } from '../common/errors/api-problem-responses.decorator.js';
import { PlainTextErrorFilter } from '../common/errors/problem-details.filter.js';
import { AnonymousCreation } from '../rate-limit/rate-limit.decorators.js';
import { QuickShortenService } from './quick-shorten.service.js';

/** `GET /api/s?url=`: for scripts and devices that cannot read JSON. Answers and errors are plain text. */
@ApiTags('quick-shorten')
@Controller('api/s')
@UseFilters(PlainTextErrorFilter)
export class QuickShortenController {
  constructor(private readonly quickShorten: QuickShortenService) {}

  /**
   * Shorten a URL, in plain text
   * @remarks Creates an anonymous link and answers with its short URL alone, as `text/plain`:
   * `curl "http://localhost:3000/api/s?url=https%3A%2F%2Fexample.com%2F"`. Errors are plain text
   * too (`error: invalid_url`). No token is needed, and a token sent is ignored.
   */
  @Get()
  // Token headers are ignored: the links are always anonymous (the rate limit is per client IP).
  @Public()
  @AnonymousCreation()
  @Header('Content-Type', 'text/plain; charset=utf-8')
  @Header('Cache-Control', 'no-store')
  @ApiProduces('text/plain')
  @ApiQuery({
    name: 'url',
    required: true,
    description: 'The target URL, URL-encoded; the same rules as `url` of `POST /api/links`',
    schema: { type: 'string', format: 'uri', example: 'https://example.com/a/very/long/path' },
  })
  @ApiOkResponse({
    description: 'The short URL alone (`text/plain; charset=utf-8`), nothing else: `{SHORT_BASE_URL}/{code}`.',
    schema: { type: 'string', format: 'uri', example: 'https://sho.rt/Ab3dE9x' },
  })
  @ApiPlainTextErrorResponses('invalid_url', 'rate_limited', 'service_unavailable')
  // `unknown`, not `string`: the validation pipe would turn a repeated ?url= (an array) into "a,b".
  shorten(@Query('url') url: unknown): Promise<string> {
    return this.quickShorten.shorten(url);
  }
}
