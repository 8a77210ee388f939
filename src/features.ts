import type { App } from "./app";
import { startOpsWorkers } from "./ops";
import { installChatHooks } from "./domain/chats/system-account";
import { installBotUpdateHooks } from "./botapi/emit";
import { startWebhookWorker } from "./botapi/webhooks";
import { installPostsHooks } from "./domain/posts/export";
import { installNotificationDelivery } from "./clientapi/notifications/serialize";
import { installChatDelivery } from "./clientapi/chats/live";
import { installStarsHooks } from "./domain/stars/export";
import { installPaymentUpdateHooks } from "./botapi/methods/payments";

/**
 * Where features plug into the process. `installFeatureHooks` runs for every App (server,
 * CLI, tests): domain hook listeners go here, one line per feature. `startFeatureWorkers`
 * runs only in a serving process: timers and background delivery (webhooks, housekeeping);
 * each worker registers its own stop with app.onClose.
 */
export function installFeatureHooks(app: App): void {
  installChatHooks(app);
  installBotUpdateHooks(app);
  installPostsHooks(app);
  installNotificationDelivery(app);
  installChatDelivery(app);
  installStarsHooks(app);
  installPaymentUpdateHooks(app);
  void app;
}

export function startFeatureWorkers(app: App): void {
  startOpsWorkers(app);
  startWebhookWorker(app);
  void app;
}
