import { DynamicModule, Global, Module } from '@nestjs/common';
import { APP_CONFIG } from './config.tokens.js';
import type { AppConfig } from './app-config.js';

/** Makes the already-validated configuration injectable everywhere as `@Inject(APP_CONFIG)`. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: AppConfig): DynamicModule {
    return { module: ConfigModule, providers: [{ provide: APP_CONFIG, useValue: config }], exports: [APP_CONFIG] };
  }
}
