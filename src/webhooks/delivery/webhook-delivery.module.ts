import { Injectable, Logger, Module, type DynamicModule, type OnApplicationBootstrap } from '@nestjs/common';
import { ClickSummaryTicker } from '../clicks/click-summary-ticker.js';
import { clickSummaryStoreProvider } from '../clicks/click-summary-store.provider.js';
import { WebhookOutboxModule } from '../outbox/webhook-outbox.module.js';
import { DELIVERY_OPTIONS, type DeliveryOptions } from './delivery-options.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import { webhookMessageStoreProvider } from './webhook-message-store.provider.js';

/** Says once, at start-up, that this instance delivers nothing (WEBHOOK_DELIVERY=off). */
@Injectable()
class DeliveryElsewhereNotice implements OnApplicationBootstrap {
  onApplicationBootstrap(): void {
    new Logger('Webhooks').log(
      'WEBHOOK_DELIVERY=off: this instance stores webhook messages and delivers none; `shortlink webhooks worker` processes on the same database deliver them',
    );
  }
}

/**
 * Delivering what the outbox holds: the worker that claims, sends and records messages
 * (WebhookDispatcher), and the timer that turns due `link.clicked` tallies into messages. Run
 * in the API instance (WEBHOOK_DELIVERY=inline, `forRoot`) or in a process of its own
 * (`shortlink webhooks worker`, src/webhooks/worker/); `off()` is an API instance that only
 * stores messages.
 */
@Module({})
export class WebhookDeliveryModule {
  static forRoot(options: DeliveryOptions): DynamicModule {
    return {
      module: WebhookDeliveryModule,
      imports: [WebhookOutboxModule],
      providers: [
        { provide: DELIVERY_OPTIONS, useValue: options },
        WebhookDispatcher,
        webhookMessageStoreProvider,
        ClickSummaryTicker,
        clickSummaryStoreProvider,
      ],
      exports: [WebhookDispatcher, ClickSummaryTicker],
    };
  }

  static off(): DynamicModule {
    return { module: WebhookDeliveryModule, providers: [DeliveryElsewhereNotice] };
  }
}
