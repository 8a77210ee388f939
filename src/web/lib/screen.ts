import type { AnyComponent } from "preact";
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
   * a link in the header for signed-in people, ordered by `order`; BADGE renders inside the
   * link after the label (a live count), so it becomes part of the link's accessible name
   */
  nav?: { label: string; order: number; href?: string | ((me: Account) => string); badge?: AnyComponent };
}
