import { Elysia } from "elysia";
import type { App } from "../../app";
import { unreadChats } from "../../domain/chats/unread";
import { instanceIdentity } from "../../domain/instance/identity";
import { notificationCounts } from "../../domain/notifications/service";
import { ok } from "../../http/envelope";
import { requestContext, requireSignedIn } from "../../http/context";
import { AppError } from "../../lib/errors";
import { issueCsrf } from "../auth/routes";
import { doc } from "../docs";
import { StartAnswer } from "../schemas";
import { serializeAccount } from "../serializers/account";

/** The refusals of a session that make the app show sign-in: here they mean "nobody signed in". */
const SIGNED_OUT = new Set(["UNAUTHORIZED", "ACCOUNT_DISABLED", "DEVICE_BANNED"]);

/**
 * /api/start: what the app's shell needs before its first screen, in one answer: a CSRF token
 * (GET /api/auth/csrf), the instance (GET /api/instance), who is signed in (GET /api/auth/me,
 * without its 401) and the header's unread counts. One request instead of five keeps a quick
 * reload inside the per-address request budget.
 */
export function startRoutes(app: App) {
  return new Elysia({ name: "client-start" }).use(requestContext(app)).get(
    "/",
    async ({ request, ip, set }) => {
      const csrf = issueCsrf(app, set);
      // the check throws at once without a session cookie, later when it had to look the session up
      const signedIn = await Promise.resolve()
        .then(() => requireSignedIn(app, request, ip, set))
        .catch((err: unknown) => {
          if (err instanceof AppError && SIGNED_OUT.has(err.code)) return null;
          throw err;
        });
      const user = signedIn?.user;
      const [chats, notifications] = user
        ? await Promise.all([unreadChats(app.db, user.id), notificationCounts(app.db, user.id).then((c) => c.unseen)])
        : [null, null];
      return ok({
        ...csrf,
        instance: instanceIdentity(app),
        account: user ? serializeAccount(user) : null,
        unread: chats && notifications !== null ? { chats: chats.chats, notifications } : null,
      });
    },
    {
      detail: doc(
        "The app's start: a CSRF token (also set as the csrf_token cookie), the instance, the signed-in account or null, and the unread counts (no session needed)",
        { data: StartAnswer },
      ),
    },
  );
}
