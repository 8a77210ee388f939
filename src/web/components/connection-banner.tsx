import { connectionState } from "../lib/realtime";

/** Says so when live updates stopped; disappears by itself once the connection is back. */
export function ConnectionBanner() {
  const state = connectionState.value;
  const text =
    state === "reconnecting"
      ? "Connection lost. Reconnecting…"
      : state === "paused"
        ? "Live updates are paused in this window: too many windows are open. They resume when you use it."
        : "";
  return (
    <div class="connection-banner" role="status" hidden={!text}>
      {text}
    </div>
  );
}
