import { useEffect, useState } from "preact/hooks";
import { t } from "../../lib/i18n";
import { FormError, Notice } from "../../components/field";
import { Loading } from "../../components/page";
import { api, describeError } from "../../lib/api";
import { formatDateTime, formatRelative } from "../../lib/format";
import { Section } from "./section";
import { deviceName } from "./sessions";
import type { NotificationSettings, PushDevice } from "../../lib/types";

type Kind = "messages" | "mentions" | "replies" | "follows" | "reactions" | "payments";

const KINDS: Kind[] = ["messages", "mentions", "replies", "follows", "reactions", "payments"];

/** How long the service worker may take to be ready before the app says it is not running. */
const READY_WAIT_MS = 10_000;

/** Whether this browser can receive pushes at all. */
const canPush = () => "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;

/** The applicationServerKey form of a base64url key. */
function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const raw = atob(base64url.replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = new Uint8Array(new ArrayBuffer(raw.length));
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  return bytes;
}

async function serviceWorker(): Promise<ServiceWorkerRegistration> {
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error(t("settings.notifications.noWorker"))), READY_WAIT_MS),
  );
  return Promise.race([navigator.serviceWorker.ready, timeout]);
}

/** Subscribes this browser with the instance's key and tells the server where to push. */
async function enableOnThisDevice(): Promise<void> {
  const permission = await Notification.requestPermission();
  if (permission !== "granted") throw new Error(t("settings.notifications.blocked"));
  const registration = await serviceWorker();
  const { publicKey } = await api.get<{ publicKey: string }>("/push/key");
  const subscription =
    (await registration.pushManager.getSubscription()) ??
    (await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(publicKey) }));
  const { endpoint, keys } = subscription.toJSON();
  await api.post("/push/subscriptions", { endpoint, keys });
}

/** Ends this browser's subscription (the server's row is removed by the caller). */
async function unsubscribeHere(): Promise<void> {
  if (!canPush()) return;
  const registration = await navigator.serviceWorker.getRegistration();
  await (await registration?.pushManager.getSubscription())?.unsubscribe();
}

/** Settings → Notifications: which kinds of push I get, this device's switch, and the devices that get them. */
export function Notifications() {
  const [settings, setSettings] = useState<NotificationSettings | null>(null);
  const [devices, setDevices] = useState<PushDevice[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const loadDevices = () =>
    api
      .get<{ subscriptions: PushDevice[] }>("/push/subscriptions")
      .then((r) => setDevices(r.subscriptions))
      .catch((err) => setError(describeError(err)));
  useEffect(() => {
    api
      .get<NotificationSettings>("/account/notification-settings")
      .then(setSettings)
      .catch((err) => setError(describeError(err)));
    void loadDevices();
  }, []);

  async function act(what: () => Promise<string>) {
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      const message = await what();
      await loadDevices();
      setNotice(message);
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  }
  // a switch shows the new state at once (a render before the answer would flip it back), and the old one if refused
  const change = (next: NotificationSettings, patch: Partial<NotificationSettings>, said: string) => {
    const before = settings;
    setSettings(next);
    return act(async () => {
      try {
        setSettings(await api.patch<NotificationSettings>("/account/notification-settings", patch));
      } catch (err) {
        setSettings(before);
        throw err;
      }
      return said;
    });
  };
  const toggle = (kind: Kind, on: boolean) =>
    settings &&
    change(
      { ...settings, push: { ...settings.push, [kind]: on } },
      { push: { [kind]: on } as never },
      t("settings.saved"),
    );
  const toggleDigest = (on: boolean) =>
    settings &&
    change(
      { ...settings, email: { digest: on } },
      { email: { digest: on } },
      on ? t("settings.notifications.digestOn") : t("settings.saved"),
    );
  const enable = () =>
    act(async () => {
      await enableOnThisDevice();
      return t("settings.notifications.enabled");
    });
  const remove = (d: PushDevice) =>
    act(async () => {
      await api.delete(`/push/subscriptions/${d.id}`);
      if (d.current) await unsubscribeHere().catch(() => {});
      return t("settings.notifications.removed", { device: deviceName(d.userAgent) });
    });

  const thisDeviceOn = devices?.some((d) => d.current) ?? false;
  return (
    <Section title={t("settings.notifications.title")} intro={t("settings.notifications.intro")}>
      {(!settings || !devices) && !error && <Loading label={t("settings.notifications.loading")} />}
      {settings && (
        <fieldset>
          <legend>{t("settings.notifications.notifyOf")}</legend>
          {KINDS.map((kind) => (
            <label key={kind} class="choice">
              <input
                type="checkbox"
                role="switch"
                checked={settings.push[kind]}
                disabled={busy}
                onChange={(e) => void toggle(kind, e.currentTarget.checked)}
              />
              {t(`settings.notifications.kinds.${kind}`)}
            </label>
          ))}
        </fieldset>
      )}
      {settings && (
        <fieldset>
          <legend>{t("settings.notifications.email")}</legend>
          <label class="choice">
            <input
              type="checkbox"
              role="switch"
              checked={settings.email.digest}
              disabled={busy}
              aria-describedby="email-digest-hint"
              onChange={(e) => void toggleDigest(e.currentTarget.checked)}
            />
            {t("settings.notifications.digest")}
          </label>
          <p class="hint" id="email-digest-hint">
            {t("settings.notifications.digestHint")}
          </p>
        </fieldset>
      )}
      {devices && (
        <>
          {!canPush() ? (
            <p class="hint">{t("settings.notifications.cannot")}</p>
          ) : (
            !thisDeviceOn && (
              <div class="actions">
                <button type="button" class="primary" disabled={busy} onClick={() => void enable()}>
                  {t("settings.notifications.enable")}
                </button>
              </div>
            )
          )}
          {devices.length === 0 ? (
            <p class="muted">{t("settings.notifications.none")}</p>
          ) : (
            <ul class="session-list" aria-label={t("settings.notifications.list")}>
              {devices.map((d) => (
                <li key={d.id} class="session">
                  <div class="session-what">
                    <p>
                      <strong>{deviceName(d.userAgent)}</strong>
                      {d.current && <span class="tag">{t("settings.devices.thisDevice")}</span>}
                    </p>
                    <p class="muted">
                      {d.lastUsedAt ? (
                        <>
                          {t("settings.notifications.lastNotified")}{" "}
                          <time dateTime={d.lastUsedAt} title={formatDateTime(d.lastUsedAt)}>
                            {formatRelative(d.lastUsedAt)}
                          </time>
                        </>
                      ) : (
                        <>
                          {t("settings.notifications.enabledAt")}{" "}
                          <time dateTime={d.createdAt}>{formatDateTime(d.createdAt)}</time>
                        </>
                      )}
                    </p>
                  </div>
                  <button
                    type="button"
                    class="small"
                    disabled={busy}
                    onClick={() => void remove(d)}
                    aria-label={t(
                      d.current ? "settings.notifications.removeThis" : "settings.notifications.removeLabel",
                      {
                        device: deviceName(d.userAgent),
                      },
                    )}
                  >
                    {t("settings.notifications.remove")}
                  </button>
                </li>
              ))}
            </ul>
          )}
        </>
      )}
      <FormError message={error} />
      <Notice message={notice} />
    </Section>
  );
}
