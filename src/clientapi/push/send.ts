import type { App } from "../../app";
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
export async function deliverPush(
  app: App,
  target: PushTarget,
  payload: PushPayload,
  signal?: AbortSignal,
): Promise<PushOutcome> {
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
        // a copy in an ArrayBuffer of its own: the encrypted record, whatever buffer web-push made it in
        body: Uint8Array.from(request.body as Uint8Array).buffer,
        redirect: "manual",
        signal: signal
          ? AbortSignal.any([signal, AbortSignal.timeout(SEND_TIMEOUT_MS)])
          : AbortSignal.timeout(SEND_TIMEOUT_MS),
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
