import { DynamicModule, Module } from '@nestjs/common';
import { AdminModule } from '../admin/admin.module.js';
import { RedisModule } from '../redis/redis.module.js';
import { ScaleOutModule } from '../scale-out/scale-out.module.js';
import { AccountsModule } from '../accounts/accounts.module.js';
import type { AppConfig } from '../config/app-config.js';
import { ConfigModule } from '../config/config.module.js';
import { DatabaseModule } from '../database/database.module.js';
import { TokensModule } from '../auth/tokens.module.js';
import { LinksModule } from '../links/links.module.js';

/**
 * What the command-line tool needs: configuration, the database, the services and (with
 * REDIS_URL) the redirect caches' invalidation channel; no HTTP.
 */
@Module({})
export class CliModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: CliModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule,
        // With REDIS_URL, what a command changes about links (an account disabled or enabled)
        // reaches the running instances' redirect caches at once, as a change through the API does.
        RedisModule,
        ScaleOutModule,
        AccountsModule,
        TokensModule,
        LinksModule,
        AdminModule,
      ],
    };
  }
}
