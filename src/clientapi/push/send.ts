import { defineService, type App } from "../../app";
import { markUsed, removeEndpoint, type PushTarget } from "../../domain/push/service";
import type { PushKind } from "../../domain/push/table";
import { allowPrivatePush, fetchPublic, outboundUrlProblem } from "../../http/outbound";

/** What a push carries, encrypted for the browser (product.md): its service worker shows it and opens URL on click. */
export interface PushPayload {
  kind: PushKind;
  title: string;
  body: string;
  /** the app's path of the screen the push is about: the chat, the post, the profile */
  url: string;
}

/** How one delivery attempt ended. */
export type PushOutcome = "sent" | "gone" | "retry" | "refused";

/** A push service answer slower than this counts as failed (and is retried). */
const SEND_TIMEOUT_MS = 10_000;
/** How long a push service may keep an undelivered push for an offline browser. */
const TTL_SECONDS = 24 * 3600;

/**
 * The VAPID subject (RFC 8292 `sub`): how a push service reaches the operator. The instance's
 * contact when it is an address or an https link, else the instance's own https address, else
 * a mailto: on its host (push services only accept mailto: and https:).
 */
export function vapidSubject(app: App): string {
  const contact = app.config["instance.contact"].trim();
  if (/^[^\s@/:]+@[^\s@/]+$/.test(contact)) return `mailto:${contact}`;
  if (/^mailto:/i.test(contact) || /^https:\/\//i.test(contact)) return contact;
  const base = new URL(app.config.baseUrl);
  return base.protocol === "https:" ? base.origin : `mailto:push@${base.hostname}`;
}

type WebPush = typeof import("web-push");
let webPush: WebPush | null = null;
// web-push loads node's https machinery: required on the first push, not at every start
const loadWebPush = (): WebPush => (webPush ??= require("web-push") as WebPush);

/**
 * Encrypts PAYLOAD for TARGET (RFC 8291 aes128gcm), signs the request (RFC 8292 VAPID) and
 * POSTs it to the push service under the outbound-URL policy (push.allowPrivateEndpoints).
 * A subscription the service calls gone (404, 410) is removed; a refusal of rate or a
 * server error is for a retry; any other answer is final.
 */
export async function deliverPush(app: App, target: PushTarget, payload: PushPayload): Promise<PushOutcome> {
  const privateOk = allowPrivatePush(app);
  if (outboundUrlProblem(app, target.endpoint, privateOk)) {
    await removeEndpoint(app.db, target.endpoint);
    return "refused";
  }
  const request = loadWebPush().generateRequestDetails(
    { endpoint: target.endpoint, keys: { p256dh: target.p256dh, auth: target.auth } },
    JSON.stringify(payload),
    {
      vapidDetails: { subject: vapidSubject(app), publicKey: app.vapid.publicKey, privateKey: app.vapid.privateKey },
      TTL: TTL_SECONDS,
      contentEncoding: "aes128gcm",
      urgency: payload.kind === "messages" ? "high" : "normal",
    },
  );
  let status: number;
  try {
    const res = await fetchPublic(
      app,
      new URL(request.endpoint),
      {
        method: "POST",
        headers: request.headers as Record<string, string>,
        body: request.body as Uint8Array,
        redirect: "manual",
        signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
      },
      (cause) => app.log.debug("push not delivered", { cause }),
      privateOk,
    );
    status = res.status;
    await res.body?.cancel();
  } catch {
    return "retry";
  }
  if (status >= 200 && status < 300) {
    await markUsed(app.db, app.clock.now(), target.endpoint);
    return "sent";
  }
  if (status === 404 || status === 410) {
    await removeEndpoint(app.db, target.endpoint);
    return "gone";
  }
  if (status === 429 || status >= 500) return "retry";
  app.log.warn("push service refused a push", { status, host: new URL(target.endpoint).host });
  return "refused";
}

/** Attempts per push before it is given up; the waits between them double from the first. */
const MAX_ATTEMPTS = 5;
const FIRST_RETRY_MS = 2_000;
/** Pushes waiting on this node at most; past it the oldest are dropped (a push is worth little late). */
const MAX_WAITING = 10_000;
/** Pushes in flight at once: a slow push service holds these, never a request of a person. */
const CONCURRENCY = 16;

interface Pending {
  run: () => Promise<PushOutcome | void>;
  attempt: number;
}

/**
 * The node's queue of push work, apart from every request: what a send or a like schedules
 * here runs after it was answered, CONCURRENCY at a time, retried with doubling waits. It is
 * held in memory, bounded (MAX_WAITING), and the node that made the change sends its pushes.
 */
export class PushOutbox {
  private readonly waiting: Pending[] = [];
  private running = 0;
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private closed = false;
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly app: App) {
    app.onClose(() => this.close());
  }

  /** Queues WORK (a fan-out or one delivery); a "retry" outcome runs it again later. Never throws, never waits. */
  schedule(work: () => Promise<PushOutcome | void>): void {
    if (this.closed) return;
    this.enqueue({ run: work, attempt: 1 });
  }

  /** Work waiting or running (for tests and the benchmark). */
  size(): number {
    return this.waiting.length + this.running + this.timers.size;
  }

  /** Settles once nothing is waiting, running or due for a retry. */
  idle(): Promise<void> {
    if (this.size() === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private enqueue(item: Pending): void {
    if (this.waiting.length >= MAX_WAITING) {
      this.waiting.shift();
      this.app.log.warn("push queue full: the oldest waiting push was dropped", { max: MAX_WAITING });
    }
    this.waiting.push(item);
    this.pump();
  }

  private pump(): void {
    while (!this.closed && this.running < CONCURRENCY && this.waiting.length > 0) {
      const item = this.waiting.shift()!;
      this.running++;
      void this.runOne(item);
    }
    this.settleIfIdle();
  }

  private async runOne(item: Pending): Promise<void> {
    let outcome: PushOutcome | void;
    try {
      outcome = await item.run();
    } catch (err) {
      this.app.log.warn("push work failed", { error: err instanceof Error ? err.message : String(err) });
      outcome = "retry";
    }
    this.running--;
    if (outcome === "retry" && item.attempt < MAX_ATTEMPTS && !this.closed) {
      const timer = setTimeout(
        () => {
          this.timers.delete(timer);
          this.enqueue({ run: item.run, attempt: item.attempt + 1 });
        },
        FIRST_RETRY_MS * 2 ** (item.attempt - 1),
      );
      (timer as { unref?: () => void }).unref?.();
      this.timers.add(timer);
    }
    this.pump();
  }

  private settleIfIdle(): void {
    if (this.size() > 0 || this.idleWaiters.length === 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  private close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.waiting.length = 0;
    this.settleIfIdle();
  }
}

export const pushOutboxService = defineService("push:outbox", (app) => new PushOutbox(app));

/** The push queue of APP. */
export const pushOutbox = (app: App): PushOutbox => app.services.get(pushOutboxService);
