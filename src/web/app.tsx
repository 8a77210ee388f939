import type { AnyComponent } from "preact";
import { useEffect, useState } from "preact/hooks";
import { ErrorBoundary, LocationProvider, Route, Router, useLocation } from "preact-iso";
import { ConnectionBanner } from "./components/connection-banner";
import { Avatar } from "./components/avatar";
import { focusPageTitle, Loading, Page } from "./components/page";
import { instanceName } from "./lib/instance";
import { describeError } from "./lib/api";
import type { Screen } from "./lib/screen";
import { account, bootSession, signedIn, signOut } from "./lib/session";
import { screens } from "./routes";
import { SignIn } from "./screens/auth/sign-in";

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
const nav = screens.filter((s) => s.nav).sort((a, b) => a.nav!.order - b.nav!.order);

/** What a signed-in person without the admin flag sees on an admin screen (the API refuses them too). */
function Refused() {
  return (
    <Page title="Not available">
      <div class="card">
        <p role="alert">Only administrators of this instance can open this page.</p>
        <p>
          <a href="/">Go to the feed</a>
        </p>
      </div>
    </Page>
  );
}

function NotFound() {
  return (
    <Page title="Page not found">
      <div class="card">
        <p>
          Nothing lives at this address. <a href="/">Go to the start</a>
        </p>
      </div>
    </Page>
  );
}

function Header() {
  const { path } = useLocation();
  const me = account.value;
  return (
    <header class="app-header">
      <div class="header-inner">
        <a class="brand" href="/">
          {instanceName.value}
        </a>
        {me ? (
          <>
            <nav aria-label="Main">
              <ul>
                {nav
                  .filter((s) => s.access !== "admin" || me.isAdmin)
                  .map((s) => {
                    const link = s.nav!.href;
                    const href = typeof link === "function" ? link(me) : (link ?? s.path);
                    const Badge = s.nav!.badge;
                    return (
                      <li key={href}>
                        <a
                          href={href}
                          aria-current={
                            path === href || (href !== "/" && path.startsWith(`${href}/`)) ? "page" : undefined
                          }
                        >
                          {s.nav!.label}
                          {Badge && <Badge />}
                        </a>
                      </li>
                    );
                  })}
              </ul>
            </nav>
            <div class="account-menu">
              <span class="me">
                <Avatar user={me} size={28} />
                <span class="me-name visually-hidden">@{me.username}</span>
              </span>
              <button type="button" onClick={() => void signOut()}>
                Sign out
              </button>
            </div>
          </>
        ) : (
          <nav aria-label="Main">
            <ul>
              <li>
                <a href="/" aria-current={path === "/" ? "page" : undefined}>
                  Sign in
                </a>
              </li>
              <li>
                <a href="/auth/register" aria-current={path === "/auth/register" ? "page" : undefined}>
                  Create an account
                </a>
              </li>
              <li>
                <a href="/about" aria-current={path === "/about" ? "page" : undefined}>
                  About
                </a>
              </li>
            </ul>
          </nav>
        )}
      </div>
    </header>
  );
}

function Shell() {
  const [bootError, setBootError] = useState<string | null>(null);
  useEffect(() => {
    bootSession().catch((err) => setBootError(describeError(err)));
  }, []);
  if (account.value === undefined) {
    return (
      <main id="main" class="boot">
        {bootError ? (
          <div class="card">
            <p role="alert">{bootError}</p>
            <button type="button" onClick={() => location.reload()}>
              Try again
            </button>
          </div>
        ) : (
          <Loading />
        )}
      </main>
    );
  }
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <Header />
      <ConnectionBanner />
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
    </>
  );
}

export function App() {
  return (
    <LocationProvider>
      <Shell />
    </LocationProvider>
  );
}
