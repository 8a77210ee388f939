/**
 * A bot's mini-app in a sandboxed frame beside the chat. The launch data travels in the URL's
 * fragment (tgWebAppData, signed by the server); there is no JavaScript bridge, as the spec
 * says. A page that refuses to be framed can be opened in a new tab from the panel's header.
 */
export function WebAppPanel({ app, onClose }: { app: { url: string; title: string } | null; onClose: () => void }) {
  if (!app) return null;
  // the bot's page gets its own origin's rights, never ours: a same-origin page stays without them
  const sameOrigin = new URL(app.url, location.href).origin === location.origin;
  const sandbox = sameOrigin ? "allow-scripts allow-forms" : "allow-scripts allow-forms allow-same-origin allow-popups";
  return (
    <aside class="web-app-panel" aria-label={`Mini-app: ${app.title}`}>
      <div class="web-app-head">
        <h2>{app.title}</h2>
        <a href={app.url} target="_blank" rel="noopener noreferrer">
          Open in a new tab
        </a>
        <button type="button" onClick={onClose}>
          Close mini-app
        </button>
      </div>
      <iframe src={app.url} title={`Mini-app: ${app.title}`} sandbox={sandbox} referrerpolicy="no-referrer" />
    </aside>
  );
}
