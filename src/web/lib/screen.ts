import type { AnyComponent } from "preact";
import type { Icon } from "../components/icon";
import type { Catalog } from "../../locales/en";
import type { Account } from "./types";

/**
 * One screen of the app. Each feature folder exports its list (screens/<feature>/routes.ts)
 * and src/web/routes.ts joins them, so a new screen never touches another feature's files.
 */
export interface Screen {
  /** preact-iso pattern: "/posts/:id" */
  path: string;
  /**
   * signed-in: a signed-out visitor sees the sign-in form in its place (and the screen after
   * signing in); signed-out: a signed-in person is sent to the feed; any: both; admin: as
   * signed-in, and an account without the admin flag is refused (its nav link is not shown).
   */
  access: "signed-in" | "signed-out" | "any" | "admin";
  component: AnyComponent<any>;
  /**
   * a link of the main navigation for signed-in people, ordered by `order`, with its ICON; BADGE
   * renders inside the link after the label (a live count), so it becomes part of the link's
   * accessible name. TAB: its place in the phone's bottom tab bar; without it the link is under "More".
   */
  nav?: {
    /** its label's key in the catalog's `app.nav` */
    label: keyof Catalog["app"]["nav"];
    order: number;
    icon: Icon;
    tab?: number;
    href?: string | ((me: Account) => string);
    badge?: AnyComponent;
  };
}
