import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.tokens.js';
import type { LinkDto } from './dto/link.dto.js';
import type { LinkRecord } from './links.repository.js';

/**
 * The link resource as the API answers it, from a stored record: for the owners' answers, the
 * admins' views and the webhook messages alike (one shape everywhere, `short_url` from
 * SHORT_BASE_URL).
 */
@Injectable()
export class LinkResource {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  toDto(link: LinkRecord): LinkDto {
    const shortBaseUrl = this.config.shortBaseUrl;
    return {
      code: link.code,
      short_url: `${shortBaseUrl}/${link.code}`,
      url: link.url,
      created_at: link.createdAt.toISOString(),
      updated_at: link.updatedAt.toISOString(),
      expires_at: link.expiresAt?.toISOString() ?? null,
      clicks: link.clicks,
      tags: link.tags,
      password_protected: link.passwordProtected,
      ios_url: link.iosUrl,
      android_url: link.androidUrl,
      disabled_at: link.disabledAt?.toISOString() ?? null,
    };
  }
}
