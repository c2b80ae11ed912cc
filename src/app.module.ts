import { DynamicModule, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { AccountsModule } from './accounts/accounts.module.js';
import { AdminModule } from './admin/admin.module.js';
import { AdminPagesModule } from './admin/pages/admin-pages.module.js';
import { ReportPagesModule } from './reports/pages/report-pages.module.js';
import { AuthModule } from './auth/auth.module.js';
import type { AppConfig } from './config/app-config.js';
import { ConfigModule } from './config/config.module.js';
import { AccountPagesModule } from './accounts/pages/account-pages.module.js';
import { TokensPagesModule } from './auth/pages/tokens-pages.module.js';
import { SignInModule } from './auth/sign-in/sign-in.module.js';
import { LinksPagesModule } from './links/pages/links-pages.module.js';
import { ClicksPagesModule } from './clicks/pages/clicks-pages.module.js';
import { DatabaseModule } from './database/database.module.js';
import { EmailLinksModule } from './auth/email-links/email-links.module.js';
import { MailDeliveryModule } from './mail/mail-delivery.module.js';
import { HealthModule } from './health/health.module.js';
import { LinksModule } from './links/links.module.js';
import { QuickShortenModule } from './quick-shorten/quick-shorten.module.js';
import { RedirectModule } from './redirect/redirect.module.js';
import { RateLimitModule } from './rate-limit/rate-limit.module.js';
import { RedisModule } from './redis/redis.module.js';
import { ServingScaleOutModule } from './scale-out/scale-out.module.js';
import { TagsModule } from './tags/tags.module.js';
import { TokensModule } from './auth/tokens.module.js';
import { loggerOptions } from './logging/logger.options.js';
import { MetricsModule } from './metrics/metrics.module.js';
import { WebhooksModule } from './webhooks/webhooks.module.js';
import { INLINE_DELIVERY } from './webhooks/delivery/delivery-options.js';
import { WebhookDeliveryModule } from './webhooks/delivery/webhook-delivery.module.js';
import { WebhooksPagesModule } from './webhooks/pages/webhooks-pages.module.js';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggerModule.forRoot(loggerOptions(config)),
        DatabaseModule,
        MetricsModule,
        RedisModule,
        // Before AuthModule: over-limit requests are refused without a token lookup.
        RateLimitModule,
        AuthModule,
        AccountsModule,
        TokensModule,
        HealthModule,
        LinksModule,
        TagsModule,
        QuickShortenModule,
        WebhooksModule,
        // Off: messages are stored all the same, and `shortlink webhooks worker` delivers them.
        config.webhooks.delivery === 'inline'
          ? WebhookDeliveryModule.forRoot(INLINE_DELIVERY)
          : WebhookDeliveryModule.off(),
        AdminModule,
        // Email: sending the outbox and the notices (nothing runs without SMTP_URL).
        MailDeliveryModule,
        // The pages, each with its feature.
        SignInModule,
        EmailLinksModule,
        LinksPagesModule,
        ClicksPagesModule,
        TokensPagesModule,
        WebhooksPagesModule,
        AccountPagesModule,
        ReportPagesModule,
        AdminPagesModule,
        RedirectModule,
        ServingScaleOutModule,
      ],
    };
  }
}
