import { useEffect, useState } from "preact/hooks";
import type { BotLogEntry as LogEntry } from "../../lib/types";
import { t } from "../../lib/i18n";
import { formatTimeWithSeconds } from "../../lib/format";

/** The server keeps 200 entries per bot; the page shows as many, newest first. */
const SHOWN = 200;

const short = (value: unknown) => {
  const text = JSON.stringify(value);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
};

/**
 * A bot's developer log, live: the last Bot API calls (method, parameters with files elided,
 * result or error, latency) and the updates delivered. The stream opens only while the
 * section is open, so a page of many bots holds no idle connections.
 */
export function BotLog({ username }: { username: string }) {
  const [open, setOpen] = useState(false);
  const [entries, setEntries] = useState<LogEntry[]>([]);
  const [state, setState] = useState<"connecting" | "live" | "reconnecting">("connecting");
  useEffect(() => {
    if (!open) return;
    setState("connecting");
    // EventSource resumes with Last-Event-ID after a drop, so nothing is shown twice
    const source = new EventSource(`/api/bots/${encodeURIComponent(username)}/log/stream`, { withCredentials: true });
    source.onopen = () => setState("live");
    source.onerror = () => setState("reconnecting");
    source.addEventListener("entry", (e) => {
      const entry = JSON.parse((e as MessageEvent<string>).data) as LogEntry;
      setEntries((list) => (list.some((x) => x.id === entry.id) ? list : [entry, ...list].slice(0, SHOWN)));
    });
    return () => source.close();
  }, [open, username]);

  return (
    <details class="bot-log" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>{t("bots.log.title")}</summary>
      <p class="muted">
        {t("bots.log.intro", { username })}{" "}
        <span role="status">
          {state === "live"
            ? t("bots.log.live")
            : state === "connecting"
              ? t("bots.log.connecting")
              : t("bots.log.reconnecting")}
        </span>
      </p>
      {entries.length === 0 ? (
        <p class="muted">{t("bots.log.empty")}</p>
      ) : (
        // focusable, so the scrolling list can be read with the keyboard
        <div role="log" class="bot-log-entries" tabIndex={0} aria-label={t("bots.log.label", { username })}>
          <ol>
            {entries.map((e) => (
              <li key={e.id} class={e.ok ? "ok" : "failed"}>
                <div class="bot-log-head">
                  <time dateTime={e.at}>{formatTimeWithSeconds(e.at)}</time>{" "}
                  <strong>
                    {e.kind === "update"
                      ? t("bots.log.update", { type: e.update?.type ?? "", method: e.method })
                      : e.method}
                  </strong>{" "}
                  {e.ok ? (
                    <span class="muted">{t("bots.log.ok")}</span>
                  ) : (
                    <span class="form-error">{t("bots.log.error", { code: e.error?.code })}</span>
                  )}
                  {e.ms !== undefined && <span class="muted"> · {e.ms} ms</span>}
                </div>
                {e.params && Object.keys(e.params).length > 0 && <code class="mono">{short(e.params)}</code>}
                {e.error ? (
                  <div class="form-error">{e.error.description}</div>
                ) : (
                  e.result !== undefined && <code class="mono muted">→ {short(e.result)}</code>
                )}
              </li>
            ))}
          </ol>
        </div>
      )}
    </details>
  );
}
