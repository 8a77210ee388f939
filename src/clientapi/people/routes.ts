import { doc } from "../docs";
import { Conversation, FollowUser, Page, Post, Profile, Story } from "../schemas";
import { Elysia, t } from "elysia";
import type { App } from "../../app";
import { toggleBlock, toggleFollow, toggleMute } from "../../domain/relations/actions";
import { cachedProfilesOf, loadProfileByUsername, requireVisibleUser } from "../../domain/profiles/service";
import { ok, type SetHeaders } from "../../http/envelope";
import { requestContext } from "../../http/context";
import { PageQuery, jsonOrEmpty, pageRequest } from "../input";
import { userPostsPage } from "../../domain/posts/feed";
import { cachedPostViewsOf } from "../../domain/posts/view";
import { userStories } from "../../domain/stories/service";
import { openPrivateChat } from "../../domain/chats";
import { requireUserByUsername } from "../../domain/users/service";
import { postListJson } from "../posts/pages";
import { serializeStory } from "../stories/serialize";
import { serializeConversation } from "../chats/serialize";
import { profileJson } from "./serialize";
import { followPageResponse, type FollowDirection } from "./follow-answers";

const UsernameParams = t.Object({ username: t.String({ minLength: 1, maxLength: 64 }) });
const OpenBody = t.Object({ start: t.Optional(t.String({ maxLength: 200 })) });

/**
 * `{profile}` of USERNAME as VIEWER sees it, as JSON text: one statement when the shown columns
 * are kept at the version it names, answered without a promise where it runs straight on SQLite.
 */
function profileResponse(app: App, set: SetHeaders, viewerId: number, username: string): string | Promise<string> {
  const view = loadProfileByUsername(app.db, cachedProfilesOf(app), viewerId, username);
  return view instanceof Promise ? view.then((v) => profileJson(set, v)) : profileJson(set, view);
}

/**
 * /api/social/users/{username}: a person's profile, followers and following, follow / block /
 * mute toggles, their posts and stories, and opening the private chat with them.
 */
export function peopleRoutes(app: App) {
  const followPage =
    (direction: FollowDirection) =>
    ({
      params,
      query,
      user,
      set,
    }: {
      params: { username: string };
      query: { cursor?: string; limit?: string };
      user: { id: number };
      set: SetHeaders;
    }) =>
      followPageResponse(app, set, user.id, params.username, direction, query);

  // a person's posts, or only those with pictures (the media gallery)
  const authorPosts =
    (which: "posts" | "media") =>
    async ({
      params,
      query,
      user,
      set,
    }: {
      params: { username: string };
      query: { cursor?: string; limit?: string };
      user: { id: number };
      set: Parameters<typeof postListJson>[0];
    }) => {
      const author = await requireVisibleUser(app.db, user.id, params.username);
      const page = await userPostsPage(app.db, cachedPostViewsOf(app), user.id, author, pageRequest(query), {
        picturesOnly: which === "media",
      });
      return postListJson(set, page);
    };

  return new Elysia({ name: "client-people" })
    .use(requestContext(app))
    .get("/:username", ({ params, user, set }) => profileResponse(app, set, user.id, params.username), {
      auth: true,
      params: UsernameParams,
      detail: doc("A person's profile", { data: t.Object({ profile: Profile }) }),
    })
    .get("/:username/followers", followPage("followers"), {
      auth: true,
      params: UsernameParams,
      query: PageQuery,
      detail: doc("Who follows a person", { data: Page("users", FollowUser) }),
    })
    .get("/:username/following", followPage("following"), {
      auth: true,
      params: UsernameParams,
      query: PageQuery,
      detail: doc("Whom a person follows", { data: Page("users", FollowUser) }),
    })
    .post(
      "/:username/follow",
      async ({ params, user }) =>
        ok(await toggleFollow(app, user.id, (await requireVisibleUser(app.db, user.id, params.username)).id)),
      {
        auth: true,
        params: UsernameParams,
        detail: doc("Follow or unfollow (a toggle)", {
          data: t.Object({ following: t.Boolean(), followersCount: t.Integer() }),
          errors: ["FORBIDDEN"],
        }),
      },
    )
    .post(
      "/:username/block",
      async ({ params, user }) =>
        ok(await toggleBlock(app, user.id, (await requireVisibleUser(app.db, user.id, params.username)).id)),
      {
        auth: true,
        params: UsernameParams,
        detail: doc("Block or unblock (a toggle)", { data: t.Object({ blocked: t.Boolean() }), errors: ["FORBIDDEN"] }),
      },
    )
    .post(
      "/:username/mute",
      async ({ params, user }) =>
        ok(await toggleMute(app, user.id, (await requireVisibleUser(app.db, user.id, params.username)).id)),
      {
        auth: true,
        params: UsernameParams,
        detail: doc("Mute or unmute (a toggle): their posts leave my feed", {
          data: t.Object({ muted: t.Boolean() }),
          errors: ["FORBIDDEN"],
        }),
      },
    )
    .get("/:username/posts", authorPosts("posts"), {
      auth: true,
      params: UsernameParams,
      query: PageQuery,
      detail: doc("A person's posts, newest first", { data: Page("posts", Post) }),
    })
    .get("/:username/media", authorPosts("media"), {
      auth: true,
      params: UsernameParams,
      query: PageQuery,
      detail: doc(
        "A person's media gallery: their own posts (not reposts) with at least one picture, newest first; the pictures are each post's images whose mime is image/*",
        { data: Page("posts", Post) },
      ),
    })
    .get(
      "/:username/stories",
      async ({ params, user }) => {
        const author = await requireVisibleUser(app.db, user.id, params.username);
        return ok({ stories: (await userStories(app.db, app.clock.now(), user.id, author.id)).map(serializeStory) });
      },
      {
        auth: true,
        params: UsernameParams,
        detail: doc("A person's stories of the last 24 hours", { data: t.Object({ stories: t.Array(Story) }) }),
      },
    )
    .post(
      "/:username/message",
      async ({ user, params, body }) => {
        const other = await requireUserByUsername(app.db, params.username);
        const conversation = await openPrivateChat(
          app,
          user.id,
          other.id,
          body.start !== undefined ? { startLabel: body.start } : {},
        );
        return ok({
          conversationId: conversation.cuid,
          conversation: await serializeConversation(app.db, conversation, user.id),
        });
      },
      {
        auth: true,
        parse: jsonOrEmpty,
        body: OpenBody,
        detail: doc("Open (or find) the private chat with a person; a bot given `start` receives /start <start>", {
          data: t.Object({ conversationId: t.String(), conversation: Conversation }),
          errors: ["FORBIDDEN", "PERMISSION_DENIED", "BOT_DISABLED", "BOT_BLOCKED"],
        }),
      },
    );
}
