import { useEffect, useRef, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { Avatar } from "./avatar";
import { LogOutIcon, MenuIcon } from "./icon";
import { instanceName } from "../lib/instance";
import type { Screen } from "../lib/screen";
import { signOut } from "../lib/session";
import type { Account } from "../lib/types";
import { t } from "../lib/i18n";

type NavEntry = NonNullable<Screen["nav"]>;

/** Whether the link to HREF is the current page's (a section's link stays current on its sub-pages). */
const isCurrent = (path: string, href: string) => path === href || (href !== "/" && path.startsWith(`${href}/`));

function NavLink({ entry, href, path }: { entry: NavEntry; href: string; path: string }) {
  const Badge = entry.badge;
  const Icon = entry.icon;
  return (
    <a href={href} aria-current={isCurrent(path, href) ? "page" : undefined}>
      <span class="nav-icon">
        <Icon />
      </span>
      <span class="nav-label">{t(`nav.${entry.label}`)}</span>
      {Badge && <Badge />}
    </a>
  );
}

/**
 * The signed-in navigation, one landmark ("Main") laid out per width by shell.css: on a phone a
 * bottom tab bar (the links with `tab`, then "More", a sheet with the other links and
 * signing out); from 700 px a side column with every link and the account.
 */
export function AppNav({ me, screens }: { me: Account; screens: Screen[] }) {
  const { path } = useLocation();
  const [moreOpen, setMoreOpen] = useState(false);
  const moreRef = useRef<HTMLButtonElement>(null);
  const visible = screens
    .filter((s) => s.nav && (s.access !== "admin" || me.isAdmin))
    .sort((a, b) => a.nav!.order - b.nav!.order)
    .map((s) => {
      const link = s.nav!.href;
      return { entry: s.nav!, href: typeof link === "function" ? link(me) : (link ?? s.path) };
    });
  const tabs = visible.filter((v) => v.entry.tab).sort((a, b) => a.entry.tab! - b.entry.tab!);
  const extras = visible.filter((v) => !v.entry.tab);
  const extraCurrent = extras.some((v) => isCurrent(path, v.href));

  useEffect(() => setMoreOpen(false), [path]);
  useEffect(() => {
    if (!moreOpen) return;
    const close = (event: KeyboardEvent) => {
      if (event.key !== "Escape") return;
      setMoreOpen(false);
      moreRef.current?.focus();
    };
    addEventListener("keydown", close);
    return () => removeEventListener("keydown", close);
  }, [moreOpen]);

  return (
    <header class="app-header app-side">
      <div class="side-top">
        <a class="brand" href="/">
          {instanceName.value}
        </a>
        <span class="me phone-only">
          <Avatar user={me} size={28} />
          <span class="visually-hidden">{t("nav.signedInAs", { username: me.username })}</span>
        </span>
      </div>
      <nav aria-label={t("nav.main")} class="main-nav" data-more={moreOpen ? "open" : "closed"}>
        <ul class="nav-tabs">
          {tabs.map((v) => (
            <li key={v.href}>
              <NavLink entry={v.entry} href={v.href} path={path} />
            </li>
          ))}
          <li class="nav-more">
            <button
              type="button"
              ref={moreRef}
              aria-expanded={moreOpen}
              aria-controls="nav-extras"
              class={extraCurrent ? "current" : undefined}
              onClick={() => setMoreOpen(!moreOpen)}
            >
              <span class="nav-icon">
                <MenuIcon />
              </span>
              <span class="nav-label">{t("nav.more")}</span>
            </button>
          </li>
        </ul>
        <ul class="nav-extras" id="nav-extras">
          {extras.map((v) => (
            <li key={v.href}>
              <NavLink entry={v.entry} href={v.href} path={path} />
            </li>
          ))}
          <li class="phone-only">
            <SignOutButton />
          </li>
        </ul>
      </nav>
      {moreOpen && <div class="nav-scrim" aria-hidden="true" onClick={() => setMoreOpen(false)} />}
      <div class="account-menu desktop-only">
        <span class="me">
          <Avatar user={me} size={28} />
          <span class="me-name">@{me.username}</span>
        </span>
        <SignOutButton />
      </div>
    </header>
  );
}

function SignOutButton() {
  return (
    <button type="button" class="sign-out" onClick={() => void signOut()}>
      <LogOutIcon size={18} />
      <span>{t("nav.signOut")}</span>
    </button>
  );
}

/** The navigation of a visitor who is not signed in: a row at the top at every width. */
export function VisitorNav() {
  const { path } = useLocation();
  const link = (href: string, label: string) => (
    <li>
      <a href={href} aria-current={path === href ? "page" : undefined}>
        {label}
      </a>
    </li>
  );
  return (
    <header class="app-header app-top">
      <div class="header-inner">
        <a class="brand" href="/">
          {instanceName.value}
        </a>
        <nav aria-label={t("nav.main")}>
          <ul>
            {link("/", t("nav.signIn"))}
            {link("/auth/register", t("nav.register"))}
            {link("/about", t("nav.about"))}
          </ul>
        </nav>
      </div>
    </header>
  );
}
