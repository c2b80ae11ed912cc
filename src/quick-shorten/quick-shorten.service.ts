import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error.js';
import { LinksService } from '../links/links.service.js';

@Injectable()
export class QuickShortenService {
  constructor(private readonly links: LinksService) {}

  /** The short URL of a new anonymous link to `url`. */
  async shorten(url: unknown): Promise<string> {
    // A repeated parameter arrives as an array: refused rather than guessing which one was meant.
    if (typeof url !== 'string') throw ApiError.invalidUrl('Pass exactly one url query parameter');
    const link = await this.links.create(undefined, { url });
    return link.short_url;
  }
}
