import { defineService, type App } from "../../app";
import { pubsub } from "../../cluster/pubsub";
import { configKeys, isConfigKey, isLiveConfigKey, liveConfigKeys, rawConfigValue, type ConfigKey } from "../../config";
import { validationError, type FieldErrors } from "../../lib/errors";
import { inTransaction } from "../../db/transaction";

/** The settings an admin may change while the server runs, with their current values. */
export function liveSettings(app: App) {
  return liveConfigKeys.map((key) => ({
    key,
    value: app.config[key],
    default: configKeys[key].default,
    describe: configKeys[key].describe,
  }));
}

export interface SettingChange {
  key: ConfigKey;
  from: unknown;
  to: unknown;
}

/**
 * Validates every value exactly as `socialctl config set` does (each key's own parser) and
 * returns the changes it would make; nothing is applied. Keys that only take effect at
 * start-up are refused, naming the CLI command instead. Any bad value fails the whole set.
 */
export function planLiveSettings(app: App, raw: Record<string, string | number | boolean | string[]>): SettingChange[] {
  const errors: FieldErrors = {};
  const parsed: Partial<Record<ConfigKey, unknown>> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (!isLiveConfigKey(key)) {
      errors[key] = [
        isConfigKey(key)
          ? "cannot be changed on a running server: use socialctl config set and restart"
          : "is not a config key",
      ];
      continue;
    }
    try {
      parsed[key] = configKeys[key].parse(rawConfigValue(value));
    } catch (err) {
      errors[key] = [(err as Error).message];
    }
  }
  if (Object.keys(errors).length) throw validationError(errors);
  if (Object.keys(parsed).length === 0) throw validationError({ body: ["give at least one setting to change"] });
  return (Object.keys(parsed) as ConfigKey[]).map((key) => ({ key, from: app.config[key], to: parsed[key] }));
}

/**
 * Stores planned CHANGES in the instance's database (so every node and every restart keeps
 * them) and applies them to this node at once; the other nodes apply them as the invalidation
 * reaches them (see installLiveSettings). BY: the administrator's account id, null for the CLI.
 */
export async function applyLiveSettings(app: App, changes: SettingChange[], by: number | null): Promise<void> {
  const now = app.clock.now();
  await inTransaction(app.storage, async ({ db: tx }) => {
    for (const change of changes) {
      const row = { key: change.key, value: JSON.stringify(change.to), updated_at: now, updated_by: by };
      await tx
        .insertInto("live_settings")
        .values(row)
        .onConflict((oc) => oc.column("key").doUpdateSet({ value: row.value, updated_at: now, updated_by: by }))
        .execute();
    }
  });
  // a re-read, not the values alone: one already under way (begun before the commit) would undo them
  await reloadLiveSettings(app);
  await pubsub(app).publish(LIVE_SETTINGS_CHANGED, pubsub(app).nodeId);
}

/** Topic on which a node tells the others (cluster/pubsub.ts) to re-read live_settings. */
const LIVE_SETTINGS_CHANGED = "settings:changed";

/** How often a node compares the table's newest change with what it applied, in case an invalidation was lost. */
const SAFETY_NET_MS = 3000;

interface LiveSettingsState {
  /** max(updated_at) and count(*) of the rows last applied */
  fingerprint: string;
  /** a re-read is under way: further requests wait for the next one */
  reading: Promise<void> | null;
  again: boolean;
}

const liveSettingsState = defineService<LiveSettingsState>("admin:live-settings", () => ({
  fingerprint: "",
  reading: null,
  again: false,
}));

/**
 * Re-reads live_settings and applies every stored value over the config file's. Overlapping
 * calls share one read, followed by one more, so a change committed during a read is not missed.
 */
export function reloadLiveSettings(app: App): Promise<void> {
  const state = app.services.get(liveSettingsState);
  if (state.reading) {
    state.again = true;
    return state.reading;
  }
  state.reading = (async () => {
    try {
      do {
        state.again = false;
        await readLiveSettings(app, state);
      } while (state.again);
    } finally {
      state.reading = null;
    }
  })();
  return state.reading;
}

async function readLiveSettings(app: App, state: LiveSettingsState): Promise<void> {
  const rows = await app.db.selectFrom("live_settings").select(["key", "value", "updated_at"]).execute();
  const values: Partial<Record<ConfigKey, unknown>> = {};
  for (const row of rows) {
    if (!isLiveConfigKey(row.key)) {
      app.log.warn("ignoring a stored setting this version cannot change live", { key: row.key });
      continue;
    }
    try {
      values[row.key] = configKeys[row.key].parse(rawConfigValue(JSON.parse(row.value)));
    } catch (err) {
      app.log.warn("ignoring an invalid stored setting", { key: row.key, error: (err as Error).message });
    }
  }
  if (Object.keys(values).length) app.reconfigure(values);
  state.fingerprint = fingerprintOf(rows.length, Math.max(0, ...rows.map((r) => Number(r.updated_at))));
}

const fingerprintOf = (count: number, latest: number) => `${count}:${latest}`;

/**
 * Applies the stored live settings on open, then keeps them current: re-read when another node
 * says it changed one, and whenever pub/sub messages may have been lost (Redis reconnected).
 * An instance whose database predates live_settings (opened without migrating) keeps its file's values.
 */
export async function installLiveSettings(app: App): Promise<void> {
  const bus = pubsub(app);
  const reread = (why: string) =>
    reloadLiveSettings(app).catch((err) =>
      app.log.warn("re-reading live settings failed", { why, error: err instanceof Error ? err.message : String(err) }),
    );
  bus.subscribe(LIVE_SETTINGS_CHANGED, (from) => {
    if (from !== bus.nodeId) void reread("another node changed one");
  });
  bus.onResync(() => void reread("pub/sub reconnected"));
  try {
    await reloadLiveSettings(app);
  } catch (err) {
    app.log.warn("live settings not read: the config file's values apply", {
      error: err instanceof Error ? err.message : String(err),
    });
  }
}

/**
 * The safety net under the invalidations, in a serving process: every few seconds one cheap
 * aggregate query, and a full re-read only when it differs from what this node applied.
 */
export function startLiveSettingsCheck(app: App): void {
  const state = app.services.get(liveSettingsState);
  let checking = false;
  const timer = setInterval(async () => {
    if (checking) return;
    checking = true;
    try {
      const row = await app.db
        .selectFrom("live_settings")
        .select((eb) => [eb.fn.countAll<number>().as("count"), eb.fn.max("updated_at").as("latest")])
        .executeTakeFirstOrThrow();
      if (fingerprintOf(Number(row.count), Number(row.latest ?? 0)) !== state.fingerprint)
        await reloadLiveSettings(app);
    } catch (err) {
      app.log.debug("live settings check failed", { error: err instanceof Error ? err.message : String(err) });
    } finally {
      checking = false;
    }
  }, SAFETY_NET_MS);
  timer.unref?.();
  app.onClose(() => clearInterval(timer));
}
