import { doc } from "../docs";
import { Page, Story, StoryGroup, StoryViewer } from "../schemas";
import { Elysia, t } from "elysia";
import type { App } from "../../app";
import {
  CAPTION_MAX,
  createStory,
  deleteStory,
  listStoryViewers,
  markStoryViewed,
  loadStoryViews,
  requireVisibleStory,
  storiesFeed,
} from "../../domain/stories/service";
import { ok } from "../../http/envelope";
import { requestContext } from "../../http/context";
import { toIso } from "../../lib/clock";
import { PageQuery, pageRequest } from "../input";
import { serializePublicUser } from "../serializers/account";
import { serializeStory, serializeStoryGroup } from "./serialize";

const CreateBody = t.Object({
  mediaUrl: t.String({ minLength: 1, maxLength: 1024 }),
  caption: t.Optional(t.String({ maxLength: CAPTION_MAX * 4 })),
});
const StoryParams = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) });

/** /api/social/stories (24 h): create, feed by followed author, view mark, viewers, delete; a person's stories are under /social/users. */
export function storyRoutes(app: App) {
  const visible = (viewerId: number, id: string) => requireVisibleStory(app.db, app.clock.now(), viewerId, id);
  const one = async (viewerId: number, story: Awaited<ReturnType<typeof visible>>) =>
    serializeStory((await loadStoryViews(app.db, viewerId, [story]))[0]!);

  return new Elysia({ name: "client-stories" })
    .use(requestContext(app))
    .post("", async ({ body, user }) => ok({ story: await one(user.id, await createStory(app, user, body)) }), {
      auth: true,
      body: CreateBody,
      detail: doc("Publish a story for 24 hours (media from /api/account/upload: story, story-video, story-voice)", {
        data: t.Object({ story: Story }),
        errors: ["POSTING_TEMPORARILY_BLOCKED", "CONTENT_REJECTED"],
      }),
    })
    .get(
      "",
      async ({ user }) =>
        ok({ groups: (await storiesFeed(app.db, app.clock.now(), user.id)).map(serializeStoryGroup) }),
      {
        auth: true,
        detail: doc("Stories of the people I follow, grouped by author", {
          data: t.Object({
            groups: t.Array(StoryGroup),
          }),
        }),
      },
    )
    .get("/:id", async ({ params, user }) => ok({ story: await one(user.id, await visible(user.id, params.id)) }), {
      auth: true,
      params: StoryParams,
      detail: doc("A story", { data: t.Object({ story: Story }) }),
    })
    .post(
      "/:id/view",
      async ({ params, user }) => {
        const story = await visible(user.id, params.id);
        await markStoryViewed(app.db, app.clock.now(), user.id, story);
        return ok({ story: await one(user.id, story) });
      },
      { auth: true, params: StoryParams, detail: doc("Mark a story seen", { data: t.Object({ story: Story }) }) },
    )
    .get(
      "/:id/viewers",
      async ({ params, query, user }) => {
        const story = await visible(user.id, params.id);
        const page = await listStoryViewers(app.db, user.id, story, pageRequest(query));
        return ok({
          viewers: page.viewers.map((v) => ({ user: serializePublicUser(v.user), viewedAt: toIso(v.viewedAt) })),
          pageInfo: { nextCursor: page.nextCursor },
        });
      },
      {
        auth: true,
        params: StoryParams,
        query: PageQuery,
        detail: doc("Who saw my story", {
          data: Page("viewers", StoryViewer),
          errors: ["FORBIDDEN"],
        }),
      },
    )
    .delete(
      "/:id",
      async ({ params, user }) => {
        await deleteStory(app.db, app.clock.now(), user.id, await visible(user.id, params.id));
        return ok({ deleted: true });
      },
      {
        auth: true,
        params: StoryParams,
        detail: doc("Delete my story", { data: t.Object({ deleted: t.Literal(true) }), errors: ["FORBIDDEN"] }),
      },
    );
}
