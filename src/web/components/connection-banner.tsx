import { connectionState } from "../lib/realtime";

/** Says so when live updates stopped; disappears by itself once the connection is back. */
export function ConnectionBanner() {
  const state = connectionState.value;
  const lost = state === "reconnecting";
  return (
    <div class="connection-banner" role="status" hidden={!lost}>
      {lost ? "Connection lost. Reconnecting…" : ""}
    </div>
  );
}
