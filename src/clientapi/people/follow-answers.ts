import { defineService, type App } from "../../app";
import type { Db } from "../../db";
import { listFollowPage, requireVisibleUser } from "../../domain/profiles/service";
import { usernameKey } from "../../domain/users/service";
import type { PageRequest } from "../../domain/posts/feed";
import { answerKey, StampedAnswers } from "../../cache/stamped-answers";
import { jsonText, ok, type SetHeaders } from "../../http/envelope";
import { pageRequest } from "../input";
import { serializePublicUser } from "../serializers/account";

export type FollowDirection = "followers" | "following";

/**
 * `{users, pageInfo}` of a page of USERNAME's followers or of the accounts they follow, as VIEWER
 * sees them, read afresh as JSON text: NOT_FOUND where the account is not there for the viewer.
 */
export async function readFollowPage(
  db: Db,
  viewerId: number,
  username: string,
  direction: FollowDirection,
  page: PageRequest,
): Promise<string> {
  const target = await requireVisibleUser(db, viewerId, username);
  const found = await listFollowPage(db, viewerId, target.id, direction, page);
  return JSON.stringify(
    ok({
      users: found.users.map(({ user: u, isFollowing }) => ({ ...serializePublicUser(u), bio: u.bio, isFollowing })),
      pageInfo: { nextCursor: found.nextCursor },
    }),
  );
}

/**
 * The App's followers and following answers, by reader, account, direction, limit and cursor,
 * kept under the stamp `follow-pages` (src/cache/registry.ts).
 */
const answersService = defineService("people:follow-answers", () => new StampedAnswers("follow-pages"));

/** readFollowPage's answer, kept under the stamp read now, else read and kept under it. */
export function followPageResponse(
  app: App,
  set: SetHeaders,
  viewerId: number,
  username: string,
  direction: FollowDirection,
  query: { cursor?: string; limit?: string },
): string | Promise<string> {
  const page = pageRequest(query);
  const key = answerKey(viewerId, direction, usernameKey(username), page.limit, query.cursor ?? "");
  return jsonText(
    set,
    app.services
      .get(answersService)
      .answer(app, key, () => readFollowPage(app.db, viewerId, username, direction, page)),
  );
}
