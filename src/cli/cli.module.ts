import { DynamicModule, Module } from '@nestjs/common';
import { AdminModule } from '../admin/admin.module.js';
import { AccountsModule } from '../accounts/accounts.module.js';
import type { AppConfig } from '../config/app-config.js';
import { ConfigModule } from '../config/config.module.js';
import { DatabaseModule } from '../database/database.module.js';
import { TokensModule } from '../auth/tokens.module.js';
import { LinksModule } from '../links/links.module.js';

/** What the command-line tool needs: configuration, the database and the services, no HTTP. */
@Module({})
export class CliModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: CliModule,
      imports: [ConfigModule.forRoot(config), DatabaseModule, AccountsModule, TokensModule, LinksModule, AdminModule],
    };
  }
}
