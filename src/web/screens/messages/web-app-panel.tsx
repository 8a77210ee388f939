/** What the server found when it asked the mini-app's page whether it may be framed. */
import { t } from "../../lib/i18n";
export type WebAppFraming = "allowed" | "refused" | "unknown";

export interface OpenWebApp {
  url: string;
  title: string;
  framing: WebAppFraming;
}

/**
 * Opens a mini-app: beside the chat in a frame, or, when its page refuses to be framed, in a
 * new tab at once (still within the tap that asked for it), the panel then saying so.
 */
export function openWebApp(launch: { url: string; framing: WebAppFraming }, title: string): OpenWebApp {
  if (launch.framing === "refused") window.open(launch.url, "_blank", "noopener,noreferrer");
  return { ...launch, title };
}

/**
 * A bot's mini-app in a sandboxed frame beside the chat. The launch data travels in the URL's
 * fragment (tgWebAppData, signed by the server); there is no JavaScript bridge, as the spec
 * says. A page that refuses to be framed is not framed: it is opened in a new tab, and the
 * panel offers the link again (a blocked pop-up). When the server could not ask the page, the
 * frame is tried and the panel says what a blank frame means.
 */
export function WebAppPanel({ app, onClose }: { app: OpenWebApp | null; onClose: () => void }) {
  if (!app) return null;
  // the bot's page gets its own origin's rights, never ours: a same-origin page stays without them
  const sameOrigin = new URL(app.url, location.href).origin === location.origin;
  const sandbox = sameOrigin ? "allow-scripts allow-forms" : "allow-scripts allow-forms allow-same-origin allow-popups";
  const newTab = (primary: boolean) => (
    <a href={app.url} target="_blank" rel="noopener noreferrer" class={primary ? "button primary" : undefined}>
      {t("messages.miniApp.newTab")}
    </a>
  );
  return (
    <aside class="web-app-panel" aria-label={t("messages.miniApp.label", { title: app.title })}>
      <div class="web-app-head">
        <h2>{app.title}</h2>
        {app.framing !== "refused" && newTab(false)}
        <button type="button" onClick={onClose}>
          {t("messages.miniApp.close")}
        </button>
      </div>
      {app.framing === "refused" ? (
        <div class="web-app-refused">
          <p role="status">{t("messages.miniApp.refused")}</p>
          <p>{newTab(true)}</p>
        </div>
      ) : (
        <>
          {app.framing === "unknown" && <p class="hint">{t("messages.miniApp.blank")}</p>}
          <iframe
            src={app.url}
            title={t("messages.miniApp.label", { title: app.title })}
            sandbox={sandbox}
            referrerpolicy="no-referrer"
          />
        </>
      )}
    </aside>
  );
}
