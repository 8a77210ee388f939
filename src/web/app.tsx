import type { AnyComponent } from "preact";
import { useEffect, useState } from "preact/hooks";
import { ErrorBoundary, LocationProvider, Route, Router, useLocation } from "preact-iso";
import { ConnectionBanner } from "./components/connection-banner";
import { AppNav, VisitorNav } from "./components/app-nav";
import { OfflineBanner, OfflineStart, UpdatePrompt } from "./components/app-status";
import { focusPageTitle, Loading, Page } from "./components/page";
import { instanceName } from "./lib/instance";
import { ApiError, describeError } from "./lib/api";
import type { Screen } from "./lib/screen";
import { startServiceWorker } from "./lib/service-worker";
import { account, bootSession, signedIn } from "./lib/session";
import { screens } from "./routes";
import { SignIn } from "./screens/auth/sign-in";
import { t } from "./lib/i18n";

/** Applies a screen's `access` before rendering it. */
function guarded(screen: Screen): AnyComponent<any> {
  const Component = screen.component;
  return function Guarded(props: Record<string, unknown>) {
    const { route } = useLocation();
    const isIn = signedIn.value;
    const redirect = screen.access === "signed-out" && isIn;
    useEffect(() => {
      if (redirect) route("/", true);
    }, [redirect]);
    if ((screen.access === "signed-in" || screen.access === "admin") && !isIn) return <SignIn />;
    if (screen.access === "admin" && !account.value?.isAdmin) return <Refused />;
    if (redirect) return null;
    return <Component {...props} />;
  };
}

const routes = screens.map((s) => ({ path: s.path, component: guarded(s) }));

/** What a signed-in person without the admin flag sees on an admin screen (the API refuses them too). */
function Refused() {
  return (
    <Page title={t("common.notAvailable.title")}>
      <div class="card">
        <p role="alert">{t("common.notAvailable.text")}</p>
        <p>
          <a href="/">{t("common.notAvailable.toFeed")}</a>
        </p>
      </div>
    </Page>
  );
}

function NotFound() {
  return (
    <Page title={t("common.notFound.title")}>
      <div class="card">
        <p>
          {t("common.notFound.text")} <a href="/">{t("common.notFound.toStart")}</a>
        </p>
      </div>
    </Page>
  );
}

function Header() {
  const me = account.value;
  return me ? <AppNav me={me} screens={screens} /> : <VisitorNav />;
}

function Shell() {
  const [bootError, setBootError] = useState<{ message: string; offline: boolean } | null>(null);
  const { route } = useLocation();
  useEffect(() => {
    startServiceWorker((url) => route(url));
    bootSession().catch((err) =>
      setBootError({
        message: describeError(err),
        offline: err instanceof ApiError && err.code === "NETWORK_ERROR",
      }),
    );
  }, []);
  if (account.value === undefined) {
    return (
      <main id="main" class="boot">
        {bootError?.offline ? (
          <OfflineStart problem={bootError.message} />
        ) : bootError ? (
          <div class="card">
            <p role="alert">{bootError.message}</p>
            <button type="button" onClick={() => location.reload()}>
              {t("common.tryAgain")}
            </button>
          </div>
        ) : (
          <Loading />
        )}
        <UpdatePrompt />
      </main>
    );
  }
  return (
    <div class={account.value ? "app-frame signed-in" : "app-frame"}>
      <a class="skip-link" href="#main">
        {t("nav.skipToContent")}
      </a>
      <Header />
      <div class="app-content">
        <OfflineBanner />
        <ConnectionBanner />
        <UpdatePrompt />
        <main id="main">
          <ErrorBoundary onError={(err) => console.error(err)}>
            <Router onRouteChange={focusPageTitle}>
              {routes.map((r) => (
                <Route key={r.path} path={r.path} component={r.component} />
              ))}
              <Route default component={NotFound} />
            </Router>
          </ErrorBoundary>
        </main>
      </div>
    </div>
  );
}

export function App() {
  return (
    <LocationProvider>
      <Shell />
    </LocationProvider>
  );
}
