import { Elysia, t } from "elysia";
import type { App } from "../../app";
import { toggleBlock, toggleFollow, toggleMute } from "../../domain/relations/actions";
import { listFollowPage, loadProfile, requireVisibleUser } from "../../domain/profiles/service";
import { ok } from "../../http/envelope";
import { requestContext } from "../../http/context";
import { PageQuery, pageRequest } from "../posts/query";
import { serializePublicUser } from "../serializers/account";
import { serializeProfile } from "./serialize";

const UsernameParams = t.Object({ username: t.String({ minLength: 1, maxLength: 64 }) });

/** People: profiles, followers/following, follow / block / mute toggles under /api/social/users. */
export function peopleRoutes(app: App) {
  const followPage = (direction: "followers" | "following") =>
    async ({ params, query, user }: { params: { username: string }; query: { cursor?: string; limit?: string }; user: { id: number } }) => {
      const target = await requireVisibleUser(app.db, user.id, params.username);
      const page = await listFollowPage(app.db, user.id, target.id, direction, pageRequest(query));
      return ok({
        users: page.users.map(({ user: u, isFollowing }) => ({ ...serializePublicUser(u), bio: u.bio, isFollowing })),
        pageInfo: { nextCursor: page.nextCursor },
      });
    };

  return new Elysia({ name: "client-people", prefix: "/social/users" })
    .use(requestContext(app))
    .get(
      "/:username",
      async ({ params, user }) => {
        const target = await requireVisibleUser(app.db, user.id, params.username);
        return ok({ profile: serializeProfile(await loadProfile(app.db, user.id, target)) });
      },
      { auth: true, params: UsernameParams },
    )
    .get("/:username/followers", followPage("followers"), { auth: true, params: UsernameParams, query: PageQuery })
    .get("/:username/following", followPage("following"), { auth: true, params: UsernameParams, query: PageQuery })
    .post(
      "/:username/follow",
      async ({ params, user }) => ok(await toggleFollow(app, user.id, (await requireVisibleUser(app.db, user.id, params.username)).id)),
      { auth: true, params: UsernameParams },
    )
    .post(
      "/:username/block",
      async ({ params, user }) => ok(await toggleBlock(app, user.id, (await requireVisibleUser(app.db, user.id, params.username)).id)),
      { auth: true, params: UsernameParams },
    )
    .post(
      "/:username/mute",
      async ({ params, user }) => ok(await toggleMute(app, user.id, (await requireVisibleUser(app.db, user.id, params.username)).id)),
      { auth: true, params: UsernameParams },
    );
}
