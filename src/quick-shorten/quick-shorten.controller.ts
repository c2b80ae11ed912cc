import { Controller, Get, Header, Query, UseFilters } from '@nestjs/common';
import { Public } from '../auth/auth.decorators.js';
import { PlainTextErrorFilter } from '../common/errors/problem-details.filter.js';
import { QuickShortenService } from './quick-shorten.service.js';

/** `GET /api/s?url=`: for scripts and devices that cannot read JSON. Answers and errors are plain text. */
@Controller('api/s')
@UseFilters(PlainTextErrorFilter)
export class QuickShortenController {
  constructor(private readonly quickShorten: QuickShortenService) {}

  /** Creates an anonymous short link and answers with its short URL alone. */
  @Get()
  // Token headers are ignored: the links are always anonymous (the rate limit is per client IP).
  @Public()
  @Header('Content-Type', 'text/plain; charset=utf-8')
  @Header('Cache-Control', 'no-store')
  // `unknown`, not `string`: the validation pipe would turn a repeated ?url= (an array) into "a,b".
  shorten(@Query('url') url: unknown): Promise<string> {
    return this.quickShorten.shorten(url);
  }
}
