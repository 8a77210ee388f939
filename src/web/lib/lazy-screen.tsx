import type { AnyComponent } from "preact";
import { lazy } from "preact-iso";
import { Page } from "../components/page";
import { t } from "./i18n";

/** The waits before the second and third try of a screen's code that failed to load. */
const RETRY_DELAYS_MS = [500, 2_000];

/**
 * A screen whose code loads on first use (preact-iso's lazy), for routes.ts files. A load that
 * fails (a busy or restarting server, a dropped connection) is tried twice more; when it still
 * fails (a tab left open across an upgrade whose chunks are gone, no network) the screen says so
 * and offers to reload the app, where a bare lazy screen would leave the page empty for good.
 */
export function lazyScreen<P>(load: () => Promise<AnyComponent<P>>): AnyComponent<P> {
  return lazy(() => withRetries(load).catch(() => ScreenNotLoaded as AnyComponent<P>));
}

async function withRetries<T>(load: () => Promise<T>): Promise<T> {
  for (const delay of RETRY_DELAYS_MS) {
    try {
      return await load();
    } catch (err) {
      console.warn("a screen's code did not load; trying again", err);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
  return load();
}

/** In place of a screen whose code could not be loaded: reloading fetches the app (a new build's) afresh. */
function ScreenNotLoaded() {
  return (
    <Page title={t("common.notLoaded.title")}>
      <div class="card">
        <p role="alert">{t("common.notLoaded.text")}</p>
        <button type="button" onClick={() => location.reload()}>
          {t("common.tryAgain")}
        </button>
      </div>
    </Page>
  );
}
