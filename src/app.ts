import { ensureInstanceSecret, loadConfig, type Config, type ConfigKey } from "./config";
import { dbPath } from "./config/layout";
import { ensureVapidKeys, type VapidKeys } from "./config/vapid";
import type { MigrationProvider } from "kysely";
import { binarySchemaLevel, migrateToLatest, openInstanceStorage, type Db, type Storage } from "./db";
import { systemClock, type Clock } from "./lib/clock";
import { createLogger, type Logger } from "./lib/log";
import { EventBroker } from "./realtime/broker";
import { LocalCarrier } from "./realtime/resume-log";
import { DomainHooks } from "./domain/hooks";

/** The one object every route factory, CLI command and domain service receives. */
export interface App {
  readonly dataDir: string;
  /** the effective config; read it per use, since reconfigure() replaces it while serving */
  readonly config: Config;
  readonly storage: Storage;
  readonly db: Db;
  readonly log: Logger;
  readonly clock: Clock;
  readonly events: EventBroker;
  /** cross-feature reactions inside the process (see domain/hooks.ts) */
  readonly hooks: DomainHooks;
  /** per-App services (file store, realtime hub, limiters, mailer, …): see Services below */
  readonly services: Services;
  /** instance secret: HMAC key for CSRF tokens and signed links */
  readonly secret: string;
  /** the instance's VAPID key pair: Web Push signatures (RFC 8292) */
  readonly vapid: VapidKeys;
  readonly startedAt: number;
  /** the newest migration this code knows: its schema compatibility level (src/db/schema-guard.ts) */
  readonly schemaLevel: string;
  /** Runs registered shutdown hooks (timers, streams) then closes the database. */
  close(): Promise<void>;
  /** Registers cleanup run by close(), newest first. */
  onClose(hook: () => void | Promise<void>): void;
  /**
   * Replaces already-validated values of the running config (the admin's live settings).
   * Only keys every reader looks up per request may be changed here: see isLiveConfigKey.
   */
  reconfigure(values: Partial<Record<ConfigKey, unknown>>): void;
}

export interface CreateAppOptions {
  dataDir: string;
  overrides?: Partial<Record<ConfigKey, unknown>>;
  clock?: Clock;
  log?: Logger;
  /** apply pending migrations on open (serve and tests do; `status` does not) */
  migrate?: boolean;
  /** the migrations this code knows; by default the ones it was built with (tests pass fewer to act as an older binary) */
  migrations?: MigrationProvider;
  /** swaps service implementations in before anything uses them (another file store, a test double) */
  services?: (services: Services) => void;
}

/** A per-App service: its name (for messages) and how to build the default implementation. */
export interface ServiceKey<T> {
  readonly name: string;
  readonly create: (app: App) => T;
}

/** Declares a per-App service; the module that owns it keeps the key and exports a typed getter. */
export const defineService = <T>(name: string, create: (app: App) => T): ServiceKey<T> => ({ name, create });

/**
 * The App's services, one instance per App (several Apps in one process, as in tests, never
 * share state, and it goes away with its App). Each is built on first use from its key's
 * default, unless an implementation was provided first: where PostgreSQL, Redis or S3
 * backed versions plug in.
 */
export class Services {
  private readonly instances = new Map<ServiceKey<unknown>, unknown>();

  constructor(private readonly owner: () => App) {}

  get<T>(key: ServiceKey<T>): T {
    if (this.instances.has(key)) return this.instances.get(key) as T;
    const made = key.create(this.owner());
    this.instances.set(key, made);
    return made;
  }

  /** Installs IMPL for KEY; refused once KEY is in use, so nobody holds the replaced one. */
  provide<T>(key: ServiceKey<T>, impl: T): void {
    if (this.instances.has(key)) throw new Error(`service ${key.name} is already in use: provide it before first use`);
    this.instances.set(key, impl);
  }
}

/**
 * The bare App: config, storage, clock, broker and hooks, no feature. wiring.ts `openApp`
 * builds one with every feature's listeners installed; that is the one to use.
 */
export async function createApp(opts: CreateAppOptions): Promise<App> {
  let config = loadConfig(opts.dataDir, opts.overrides);
  const log = opts.log ?? createLogger({ format: config["log.format"], level: config["log.level"] });
  const secret = ensureInstanceSecret(opts.dataDir);
  const vapid = ensureVapidKeys(opts.dataDir);
  const storage = openInstanceStorage(config["database.url"], dbPath(opts.dataDir), {
    longReadQueue: () => config["limits.longReadQueue"],
    poolSize: config["database.poolSize"],
  });
  if (opts.migrate !== false) {
    try {
      await migrateToLatest(storage.db, {
        provider: opts.migrations,
        onProgress: (p) =>
          log.info(p.ms === undefined ? "applying migration" : "migration applied", {
            migration: p.name,
            step: `${p.index}/${p.total}`,
            ms: p.ms && Math.round(p.ms),
          }),
      });
    } catch (err) {
      // refused (a newer schema) or failed: nothing holds the database open behind the error
      await storage.close();
      throw err;
    }
  }
  const closeHooks: Array<() => void | Promise<void>> = [];
  let closed = false;
  const app: App = {
    dataDir: opts.dataDir,
    get config() {
      return config;
    },
    reconfigure(values) {
      config = Object.freeze({ ...config, ...values }) as Config;
    },
    storage,
    db: storage.db,
    log,
    clock: opts.clock ?? systemClock,
    events: new EventBroker(
      (broker) =>
        new LocalCarrier(broker, {
          retentionMs: () => config["realtime.retentionSeconds"] * 1000,
          maxAccounts: () => app.config["limits.resumeAccounts"],
          now: () => (opts.clock ?? systemClock).now(),
        }),
    ),
    hooks: new DomainHooks(log),
    services: new Services(() => app),
    secret,
    vapid,
    startedAt: Date.now(),
    schemaLevel: await binarySchemaLevel(opts.migrations),
    onClose: (hook) => closeHooks.push(hook),
    async close() {
      if (closed) return;
      closed = true;
      for (const hook of closeHooks.reverse()) {
        try {
          await hook();
        } catch (err) {
          log.error("shutdown hook failed", { error: String(err) });
        }
      }
      await storage.close();
    },
  };
  opts.services?.(app.services);
  return app;
}
