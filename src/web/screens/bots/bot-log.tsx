import { useEffect, useState } from "preact/hooks";
import type { BotLogEntry as LogEntry } from "../../lib/types";

/** The server keeps 200 entries per bot; the page shows as many, newest first. */
const SHOWN = 200;

const short = (value: unknown) => {
  const text = JSON.stringify(value);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
};
const timeOf = (iso: string) => new Date(iso).toLocaleTimeString();

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
      <summary>Developer log</summary>
      <p class="muted">
        The last Bot API calls of @{username} and the updates it received, live; kept in memory until the server
        restarts.{" "}
        <span role="status">
          {state === "live" ? "Live." : state === "connecting" ? "Connecting…" : "Reconnecting…"}
        </span>
      </p>
      {entries.length === 0 ? (
        <p class="muted">Nothing yet: calls appear here as the bot makes them.</p>
      ) : (
        // focusable, so the scrolling list can be read with the keyboard
        <div role="log" class="bot-log-entries" tabIndex={0} aria-label={`Log of @${username}`}>
          <ol>
            {entries.map((e) => (
              <li key={e.id} class={e.ok ? "ok" : "failed"}>
                <div class="bot-log-head">
                  <time dateTime={e.at}>{timeOf(e.at)}</time>{" "}
                  <strong>{e.kind === "update" ? `update ${e.update?.type ?? ""} via ${e.method}` : e.method}</strong>{" "}
                  {e.ok ? <span class="muted">ok</span> : <span class="form-error">error {e.error?.code}</span>}
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
