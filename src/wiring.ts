// before the Client API's modules declare their schemas: t.Integer compiles its checker on first use
import "./http/lazy-integer";
import { createApp, type App, type CreateAppOptions } from "./app";
import { startOpsWorkers } from "./ops";
import { startControlSocket, type ReportedEvent } from "./ops/control";
import { realtimeHub } from "./realtime/hub";
import { recheckLongPolls } from "./domain/bots/updates";
import { healthz, readyz } from "./ops/health";
import { installChatHooks } from "./domain/chats/system-account";
import { installPostsHooks } from "./domain/posts/export";
import { installStarsHooks } from "./domain/stars/export";
import { installReportHooks } from "./domain/reports/export";
import { installBotUpdateHooks } from "./botapi/emit";
import { installPaymentUpdateHooks } from "./botapi/methods/payments";
import { installCallbackQueryHooks } from "./botapi/methods/callbacks";
import { startWebhookWorker } from "./botapi/webhooks";
import { startJobWorker } from "./jobs/worker";
import { startMessageIndexer } from "./domain/search/message-index";
import { registerJobHandler } from "./jobs/queue";
import { mailJobHandler } from "./domain/auth/notify";
import { emailDigestJobHandler } from "./domain/notifications/email-digest";
import { botApiBeforeRouting } from "./botapi/routes";
import { installNotificationDelivery } from "./clientapi/notifications/serialize";
import { installChatDelivery } from "./clientapi/chats/live";
import { installPushDelivery } from "./clientapi/push/deliver";
import { installLinkPreviews } from "./http/link-preview";
import { installRealtimeDelivery } from "./clientapi/realtime";
import { referenceRoutes } from "./http/reference";
import { UPLOAD_PATH } from "./clientapi/uploads/path";
import { fileRoutes } from "./media/serve";
import { createHttpApp, lazySurface, mountBuilt } from "./http/server";
import { CLIENT_API, clientApiPart } from "./clientapi";
import { Elysia, type AnyElysia } from "elysia";
import { webAppRoutes } from "./http/web-app";
import { pwaRoutes } from "./http/pwa";
import { metricsRoutes } from "./ops/metrics";
import { operatorLogRoutes } from "./ops/bot-log";
import { openClusterEngines } from "./cluster/engines";
import { pubsub } from "./cluster/pubsub";
import { openS3FileStore } from "./media/s3-store";
import { installLiveSettings, reloadLiveSettings, startLiveSettingsCheck } from "./domain/admin/settings";

/*
 * The composition root: the one module that knows every feature. Nothing imports it but the
 * entry points (main.ts, the CLI, tests); features stay ignorant of one another and reach
 * across through app.hooks, whose listeners are installed here.
 */

/** An App with every feature's listeners installed: what the server, the CLI and tests use. */
export async function openApp(opts: CreateAppOptions): Promise<App> {
  const app = await createApp(opts);
  await openClusterEngines(app);
  openS3FileStore(app);
  installListeners(app);
  // the settings administrators changed live (in the database) over the config file's, before anything serves
  await installLiveSettings(app);
  return app;
}

/** Domain hook listeners, one line per feature; they run for every App (server, CLI, tests). */
function installListeners(app: App): void {
  // the job queue's handlers: every kind a worker of this binary carries out
  registerJobHandler(app, mailJobHandler);
  registerJobHandler(app, emailDigestJobHandler);
  installLinkPreviews(app);
  installChatHooks(app);
  installBotUpdateHooks(app);
  installPostsHooks(app);
  installNotificationDelivery(app);
  installChatDelivery(app);
  installRealtimeDelivery(app);
  installPushDelivery(app);
  installStarsHooks(app);
  installReportHooks(app);
  installPaymentUpdateHooks(app);
  installCallbackQueryHooks(app);
  // a node told about a change made elsewhere (another node's CLI report) re-checks its own streams and polls
  const bus = pubsub(app);
  bus.subscribe(RECHECK, (from) => {
    if (from !== bus.nodeId)
      recheckRevoked(app).catch((err) =>
        app.log.warn("re-check after another node's change failed", {
          error: err instanceof Error ? err.message : String(err),
        }),
      );
  });
  // events may have been lost on the way here: streams resume from the shared log
  bus.onResync(() => realtimeHub(app).resync());
}

const RECHECK = "cluster:recheck";

/** Ends streams and parked long polls whose session, account, token or bot is no longer usable. */
async function recheckRevoked(app: App): Promise<void> {
  await Promise.all([realtimeHub(app).closeRevoked(), recheckLongPolls(app)]);
}

/**
 * Timers and background delivery (housekeeping, backups, webhooks, the job queue), only in a serving
 * process; each worker registers its own stop with app.onClose.
 */
export function startWorkers(app: App): void {
  startOpsWorkers(app);
  startWebhookWorker(app);
  startJobWorker(app);
  startMessageIndexer(app);
  startLiveSettingsCheck(app);
  startControlSocket(app, (events) => applyReportedChange(app, events));
}

/**
 * A change another process (a `socialctl` command) made to the database and reported on the
 * control socket: the events it published are delivered, and
 * streams and parked long polls of whatever it revoked are ended, on this node before it is
 * answered, and on the other nodes as the messages reach them.
 */
async function applyReportedChange(app: App, events: ReportedEvent[]): Promise<void> {
  // `socialctl config set` of a live setting: in effect here before the command returns
  await reloadLiveSettings(app);
  for (const e of events) app.events.publish(e.userId, e.event, e.data as never);
  await recheckRevoked(app);
  await pubsub(app).publish(RECHECK, pubsub(app).nodeId);
}

/**
 * The root HTTP app: global guards and error mapping (http/server.ts), then every surface by
 * prefix; and every route it serves (what sweeps enumerate). SANDBOX_ROUTES: what only the
 * server of `socialctl dev` serves (its one-time sign-in links).
 */
export function createRootHttpApp(app: App, { sandboxRoutes }: { sandboxRoutes?: AnyElysia } = {}) {
  // each prefix built on its first request, not at start (its modules too): building every route
  // would be a large share of a restart's CPU and of an idle process's memory
  const clientApi = lazySurface(
    app,
    "/api",
    CLIENT_API.map((entry) => ({
      prefix: `/api${entry.prefix}`,
      build: async () => new Elysia({ prefix: "/api" }).use(await clientApiPart(app, entry)),
    })),
  );
  // the Bot API's token paths are answered before routing, by the root's front door
  const http = createHttpApp(app, { largeBodyPaths: [UPLOAD_PATH], beforeRouting: botApiBeforeRouting(app) })
    .get("/healthz", () => healthz(app))
    .get("/readyz", () => readyz(app))
    .use(metricsRoutes(app))
    .use(operatorLogRoutes(app))
    .use(clientApi.catchAll)
    // /api/openapi.json, /api/docs, /api/bot-openapi.json, /api/bot-docs: both surfaces described, made
    // from them; the builders (and the Bot API guide the Bot API one quotes) are loaded by the first request
    .use(
      referenceRoutes({
        client: async () =>
          (await import("./clientapi/openapi")).clientApiDocument(
            (await clientApi.surfaces()).reduce((all: AnyElysia, part) => all.use(part), new Elysia()),
          ),
        bot: async () =>
          (await import("./botapi/reference")).botApiDocument(
            app.config["limits.botCallsPerMinute"],
            app.config["limits.botNewChatsPerHour"],
          ),
      }),
    )
    .use(fileRoutes(app))
    .use(sandboxRoutes ?? new Elysia({ name: "no-sandbox-routes" }))
    .use(pwaRoutes(app))
    // last: its catch-all answers client routes with the app page and anything else with a JSON 404
    .use(webAppRoutes(app));
  // once built, each part's routes join the root's (more specific than both catch-alls, so order is moot)
  clientApi.onBuilt((part) => mountBuilt(http, part));
  return {
    http,
    /** settles once a part of the Client API is built (never, if no request needs one) */
    clientApiBuilt: clientApi.anyBuilt,
    routes: async () => {
      await clientApi.surfaces();
      return http.routes.filter((r) => !clientApi.isCatchAll(r));
    },
  };
}
