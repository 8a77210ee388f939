import type { App } from "../../app";
import { exportAccountData } from "../../domain/account/export";
import { notificationPage } from "../../domain/notifications/service";
import { cachedProfilesOf, loadProfile } from "../../domain/profiles/service";
import type { UserRow } from "../../domain/users/table";
import { toIso } from "../../lib/clock";
import type { Cursor } from "../../lib/paging";
import { serializeNotification } from "../notifications/serialize";
import { serializeProfile } from "../people/serialize";
import { serializeAccount } from "../serializers/account";

/** Pages read when exporting notifications (100 each): a bound, not a quota anyone reaches. */
const MAX_NOTIFICATION_PAGES = 1000;

/** `GET /api/account/export`: the person's own data, with account, profile and notifications as the Client API shows them. */
export async function buildAccountExport(app: App, user: UserRow): Promise<Record<string, unknown>> {
  const notifications = [];
  let cursor: Cursor | null = null;
  for (let i = 0; i < MAX_NOTIFICATION_PAGES; i++) {
    const page = await notificationPage(app.db, user.id, { cursor, limit: 100, unreadOnly: false });
    notifications.push(...page.items.map(serializeNotification));
    if (!page.nextCursor || !page.last) break;
    cursor = page.last;
  }
  return {
    exportedAt: toIso(app.clock.now()),
    account: serializeAccount(user),
    profile: serializeProfile(await loadProfile(app.db, cachedProfilesOf(app), user.id, user)),
    ...(await exportAccountData(app, user)),
    notifications,
  };
}
