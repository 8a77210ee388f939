import type { App } from "../app";
import { countersService } from "./counters";
import { leasesService } from "./leases";
import { pubsubService } from "./pubsub";
import { RedisEngines } from "./redis";

/**
 * Chooses the cluster engines once, at start-up, from the config: with `pubsub.url` empty
 * they stay in this process (the services' defaults); with a redis:// URL, pub/sub, the
 * realtime carrier and its resume log, rate-limit counters and leases all move to Redis.
 * Features only ever see the interfaces.
 */
export async function openClusterEngines(app: App): Promise<void> {
  const url = app.config["pubsub.url"];
  if (!url) return;
  const redis = new RedisEngines(url, app.secret, app.log);
  app.services.provide(pubsubService, redis);
  app.services.provide(countersService, redis);
  app.services.provide(leasesService, redis);
  app.events.useCarrier(redis.carrierFor(app.events, () => app.config["realtime.retentionSeconds"] * 1000));
  app.onClose(() => redis.close());
  await redis.start();
}
