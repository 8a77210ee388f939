import { Elysia } from "elysia";
import type { App } from "../../app";
import { audited, type AdminAction } from "../../domain/admin/audit";
import type { UserRow } from "../../domain/users/table";
import { SESSION_SCHEME, checkedAccount, checkSignedIn, requestContext, requireSignedIn } from "../../http/context";
import { ROUTE_ERRORS_KEY } from "../docs";
import { forbidden } from "../../lib/errors";

/**
 * The `admin` macro of every /api/admin route: signed out is 401 UNAUTHORIZED (the `auth`
 * macro), a signed-in account without the admin flag 403 FORBIDDEN. It gives `admin`, the
 * acting administrator's account.
 */
export function adminContext(app: App) {
  return new Elysia({ name: "admin-context" }).use(requestContext(app)).macro({
    admin: {
      // in /api/openapi.json: a session is needed, and an account without the admin flag gets FORBIDDEN
      detail: { security: [{ [SESSION_SCHEME]: [] }], [ROUTE_ERRORS_KEY]: ["FORBIDDEN"] },
      // before the body is validated, like the auth macro: a non-administrator learns nothing of the schema
      async transform({ request, ip }) {
        await checkSignedIn(app, request, ip);
        if (checkedAccount(request)?.is_admin !== 1) throw forbidden("Only administrators can do this");
      },
      async resolve({ request, ip, set }) {
        const { user, session } = await requireSignedIn(app, request, ip, set);
        if (user.is_admin !== 1) throw forbidden("Only administrators can do this");
        return { admin: user, session };
      },
    },
  });
}

/** Runs ACTION under its audit entries (who, what, target, when): see `audited`. */
export const logged = <R>(
  app: App,
  admin: UserRow,
  entries: AdminAction[],
  action: () => Promise<R>,
  outcome?: (result: R) => Partial<AdminAction>,
) => audited(app.db, app.clock.now(), admin, entries, action, outcome);
