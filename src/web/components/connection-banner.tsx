import { connectionState } from "../lib/realtime";
import { t } from "../lib/i18n";

/** Says so when live updates stopped; disappears by itself once the connection is back. */
export function ConnectionBanner() {
  const state = connectionState.value;
  const text =
    state === "reconnecting"
      ? t("common.connection.reconnecting")
      : state === "paused"
        ? t("common.connection.paused")
        : "";
  return (
    <div class="connection-banner" role="status" hidden={!text}>
      {text}
    </div>
  );
}
