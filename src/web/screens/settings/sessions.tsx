import { useEffect, useState } from "preact/hooks";
import { t } from "../../lib/i18n";
import { FormError, Notice } from "../../components/field";
import { Loading } from "../../components/page";
import { api, describeError } from "../../lib/api";
import { formatDateTime, formatNumber, formatRelative } from "../../lib/format";
import { Section } from "./section";
import type { Session } from "../../lib/types";

const BROWSERS: Array<[RegExp, string]> = [
  [/Edg\//, "Edge"],
  [/OPR\//, "Opera"],
  [/Firefox\//, "Firefox"],
  [/Chrom(e|ium)\//, "Chrome"],
  [/Safari\//, "Safari"],
];
const SYSTEMS: Array<[RegExp, string]> = [
  [/Android/, "Android"],
  [/iPhone|iPad|iOS/, "iOS"],
  [/Mac OS X|Macintosh/, "macOS"],
  [/Windows/, "Windows"],
  [/CrOS/, "ChromeOS"],
  [/Linux/, "Linux"],
];

/** "Firefox on Linux" for a browser; a program's own user agent as it is ("my-bot/1.0"). */
export function deviceName(ua: string | null): string {
  if (!ua) return t("settings.devices.unknown");
  const browser = BROWSERS.find(([re]) => re.test(ua))?.[1];
  const system = SYSTEMS.find(([re]) => re.test(ua))?.[1];
  if (browser && system) return t("settings.devices.browserOn", { browser, system });
  return browser ?? ua.split(" ")[0]!.slice(0, 60);
}

/** The devices signed in to this account; any but this one can be signed out, or all of them at once. */
export function Sessions({ version }: { version: number }) {
  const [sessions, setSessions] = useState<Session[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const load = () =>
    api
      .get<{ sessions: Session[] }>("/auth/sessions")
      .then((r) => setSessions(r.sessions))
      .catch((err) => setError(describeError(err)));
  useEffect(() => void load(), [version]);

  async function act(what: () => Promise<string>) {
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      const message = await what();
      // the list is read again first, so the note and the list it speaks of appear together
      await load();
      setNotice(message);
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  }
  const revoke = (s: Session) =>
    act(async () => {
      await api.delete(`/auth/sessions/${s.id}`);
      return t("settings.devices.signedOut", { device: deviceName(s.userAgent) });
    });
  const revokeOthers = () =>
    act(async () => {
      const { revoked } = await api.post<{ revoked: number }>("/auth/sessions/revoke-others");
      return t("settings.devices.othersSignedOut", { count: revoked });
    });

  const others = sessions?.filter((s) => !s.current).length ?? 0;
  return (
    <Section title={t("settings.devices.title")} intro={t("settings.devices.intro")}>
      {!sessions && !error && <Loading label={t("settings.devices.loading")} />}
      {sessions && (
        <ul class="session-list" aria-label={t("settings.devices.list")}>
          {sessions.map((s) => (
            <li key={s.id} class="session">
              <div class="session-what">
                <p>
                  <strong>{deviceName(s.userAgent)}</strong>
                  {s.current && <span class="tag">{t("settings.devices.thisDevice")}</span>}
                </p>
                <p class="muted">
                  {s.ip ? `${s.ip} · ` : ""}
                  {t("settings.devices.active")}{" "}
                  <time dateTime={s.lastSeenAt} title={formatDateTime(s.lastSeenAt)}>
                    {formatRelative(s.lastSeenAt)}
                  </time>{" "}
                  · {t("settings.devices.signedIn")} <time dateTime={s.createdAt}>{formatDateTime(s.createdAt)}</time>
                </p>
              </div>
              {!s.current && (
                <button
                  type="button"
                  class="small"
                  disabled={busy}
                  onClick={() => void revoke(s)}
                  aria-label={t("settings.devices.signOutLabel", {
                    device: deviceName(s.userAgent),
                    when: formatRelative(s.lastSeenAt),
                  })}
                >
                  {t("settings.devices.signOut")}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <FormError message={error} />
      <Notice message={notice} />
      {others > 0 && (
        <div class="actions">
          <button type="button" class="danger" disabled={busy} onClick={() => void revokeOthers()}>
            {t("settings.devices.signOutOthers")}
          </button>
        </div>
      )}
    </Section>
  );
}
