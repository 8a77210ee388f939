import { defineService, type App } from "../../app";
import { pubsub } from "../../cluster/pubsub";

/** Topic on which a node tells the others an account subscribed (its id as the message). */
const SUBSCRIBED = "push:subscribed";

/**
 * The accounts that may have a push subscription, kept in memory per node so that a message
 * send (pinned at a few statements, send-statements.test.ts) spends no query on pushes when
 * none of its recipients could get one. Read from push_subscriptions at start and again
 * whenever pub/sub may have lost messages; a subscription made on any node adds its account
 * on every node. Removals are not tracked: an account kept after its last subscription went
 * costs one job that finds nobody to push to. Bounded by the accounts that ever subscribed.
 */
class PushSubscribers {
  private ids = new Set<number>();
  /** until the first read completes, every account may have one */
  private loaded = false;

  constructor(private readonly app: App) {
    const bus = pubsub(app);
    bus.subscribe(SUBSCRIBED, (message) => this.ids.add(Number(message)));
    bus.onResync(() => void this.reload());
    void this.reload();
  }

  /** Whether USERID may have a subscription (false: certainly none). */
  mayHave(userId: number): boolean {
    return !this.loaded || this.ids.has(userId);
  }

  add(userId: number): void {
    this.ids.add(userId);
    void pubsub(this.app).publish(SUBSCRIBED, String(userId));
  }

  private async reload(): Promise<void> {
    try {
      const rows = await this.app.db.selectFrom("push_subscriptions").select("user_id").distinct().execute();
      for (const r of rows) this.ids.add(r.user_id);
      this.loaded = true;
    } catch (err) {
      this.app.log.warn("push subscribers not read: every account counts as subscribed", {
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }
}

const subscribersService = defineService("push:subscribers", (app) => new PushSubscribers(app));

/** The accounts of APP that may have a push subscription. */
export const pushSubscribers = (app: App): PushSubscribers => app.services.get(subscribersService);
