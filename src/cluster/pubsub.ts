import { defineService, type App } from "../app";
import { randomToken } from "../lib/ids";
import type { Logger } from "../lib/log";

/**
 * Messages between the serving nodes of one instance: a parked long poll, a Pay press or a
 * cache on node B hears about what happened on node A. In one process (the default) a
 * publish reaches the listeners synchronously, exactly as a direct call would; with
 * `pubsub.url` set it goes through Redis to every node, this one included.
 */
export interface PubSub {
  /** what status and /readyz name */
  readonly engine: "in-process" | "redis";
  /** this node's id: owner of its leases, sender of its messages */
  readonly nodeId: string;
  /** Sends MESSAGE on TOPIC to the listeners of every node, this one's included; resolves once handed over. */
  publish(topic: string, message: string): Promise<void>;
  subscribe(topic: string, listener: (message: string) => void): () => void;
  /** LISTENER runs whenever messages may have been lost (the connection to Redis came back): re-read shared state. */
  onResync(listener: () => void): () => void;
  /** null while usable, else what is wrong (for /readyz, status and doctor) */
  problem(): Promise<string | null>;
}

export class LocalPubSub implements PubSub {
  readonly engine = "in-process";
  readonly nodeId = randomToken(8);
  private readonly topics = new Map<string, Set<(message: string) => void>>();

  constructor(private readonly log: Logger) {}

  async publish(topic: string, message: string): Promise<void> {
    for (const listener of this.topics.get(topic) ?? []) {
      // as over Redis: one listener's failure is logged, never the publisher's (publishes run after commits)
      try {
        listener(message);
      } catch (err) {
        this.log.error("pub/sub listener failed", { topic, error: err instanceof Error ? err.message : String(err) });
      }
    }
  }

  subscribe(topic: string, listener: (message: string) => void): () => void {
    let set = this.topics.get(topic);
    if (!set) this.topics.set(topic, (set = new Set()));
    set.add(listener);
    return () => set!.delete(listener);
  }

  onResync(): () => void {
    // nothing between this process and itself can lose a message
    return () => {};
  }

  async problem(): Promise<string | null> {
    return null;
  }
}

/** The pub/sub service: in this process unless the composition root provided another (Redis). */
export const pubsubService = defineService<PubSub>("cluster:pubsub", (app) => new LocalPubSub(app.log));

/** The App's pub/sub. */
export const pubsub = (app: App): PubSub => app.services.get(pubsubService);
