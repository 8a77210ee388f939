import { doc, NullableString } from "../docs";
import { Conversation, GroupInvite, Member, Page } from "../schemas";
import { Elysia, t } from "elysia";
import type { App } from "../../app";
import {
  ADMIN_RIGHTS,
  addMember,
  createGroup,
  createInvite,
  defaultAdminRights,
  findConversationById,
  getMember,
  groupByInvite,
  isActive,
  joinByInvite,
  leaveGroup,
  listMembers,
  promoteMember,
  removeMember,
  renameGroup,
  describeGroup,
  requireGroup,
  requireMembershipByCuid,
  setGroupPhoto,
  type Rights,
} from "../../domain/chats";
import { findUserByUsername, requireUserByUsername } from "../../domain/users/service";
import { ok } from "../../http/envelope";
import { requestContext } from "../../http/context";
import { fieldError, validationError } from "../../lib/errors";
import { parseLimit } from "../../lib/paging";
import { PageQuery } from "../input";
import { markAttached, resolveOwnUpload } from "../../media/uploads";
import { serializeConversation, serializeMember } from "./serialize";

const CreateBody = t.Object({
  title: t.String({ maxLength: 1000 }),
  members: t.Optional(t.Array(t.String({ maxLength: 64 }), { maxItems: 1000 })),
});
const UpdateBody = t.Object({
  title: t.Optional(t.String({ maxLength: 1000 })),
  // counted in characters by the domain; the schema caps the size only
  description: t.Optional(t.String({ maxLength: 1000 })),
  photoUrl: t.Optional(t.Union([t.String({ maxLength: 2048 }), t.Null()])),
});
const MemberBody = t.Object({ username: t.String({ minLength: 1, maxLength: 64 }) });
const PromoteBody = t.Object({
  role: t.Optional(t.Union([t.Literal("administrator"), t.Literal("member")])),
  // checked by parseRights: a t.Record walked a string given in its place character by
  // character (seconds for a large one), and a t.Object let Elysia's normalizer turn a string into {}
  rights: t.Optional(t.Unknown()),
});
const JoinBody = t.Object({ code: t.String({ minLength: 1, maxLength: 200 }) });

/** An object of known rights to booleans; its cost is bounded by the number of rights, whatever was sent. */
function parseRights(raw: unknown): Rights {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw fieldError("rights", `must be an object of ${ADMIN_RIGHTS.join(", ")} to true or false`);
  const keys = Object.keys(raw);
  const unknown = keys.find((k) => !(ADMIN_RIGHTS as readonly string[]).includes(k));
  if (unknown !== undefined)
    throw fieldError(`rights.${unknown.slice(0, 64)}`, `is not one of ${ADMIN_RIGHTS.join(", ")}`);
  const wrong = keys.find((k) => typeof (raw as Record<string, unknown>)[k] !== "boolean");
  if (wrong !== undefined) throw fieldError(`rights.${wrong}`, "must be true or false");
  return raw as Rights;
}

/** Groups: /api/social/groups/* */
export function chatGroupRoutes(app: App) {
  const group = async (cid: string, userId: number) => {
    const membership = await requireMembershipByCuid(app.db, cid, userId);
    requireGroup(membership.conversation);
    return membership;
  };
  const shown = async (conversationId: number, viewerId: number) =>
    serializeConversation(app.db, (await findConversationById(app.db, conversationId))!, viewerId);

  return new Elysia({ name: "client-chats-groups" })
    .use(requestContext(app))
    .post(
      "",
      async ({ user, body }) => {
        const members = body.members ?? [];
        const ids: number[] = [];
        const unknown: string[] = [];
        for (const name of members) {
          const found = await findUserByUsername(app.db, name);
          if (found && found.is_system !== 1) ids.push(found.id);
          else unknown.push(name);
        }
        if (unknown.length)
          throw validationError({ members: [`unknown accounts: ${unknown.slice(0, 10).join(", ")}`] });
        const conv = await createGroup(app, user.id, body.title, ids);
        return ok({ conversationId: conv.cuid, conversation: await shown(conv.id, user.id) });
      },
      {
        auth: true,
        body: CreateBody,
        detail: doc("Create a group with members (usernames); bots added receive my_chat_member", {
          data: t.Object({ conversationId: t.String(), conversation: Conversation }),
        }),
      },
    )
    .get(
      "/join/:code",
      async ({ user, params }) => {
        const conv = await groupByInvite(app.db, params.code);
        const member = await getMember(app.db, conv.id, user.id);
        return ok({
          group: {
            title: conv.title ?? "",
            description: conv.description,
            photoUrl: conv.photo_url,
            memberCount: conv.member_count,
          },
          isMember: isActive(member),
        });
      },
      {
        auth: true,
        params: t.Object({ code: t.String({ minLength: 1, maxLength: 200 }) }),
        detail: doc("The group an invite code opens, shown before joining it", {
          data: GroupInvite,
        }),
      },
    )
    .post(
      "/join",
      async ({ user, body }) => {
        const conv = await joinByInvite(app, { code: body.code, userId: user.id });
        return ok({ conversationId: conv.cuid, conversation: await shown(conv.id, user.id) });
      },
      {
        auth: true,
        body: JoinBody,
        detail: doc(
          "Join a group by its invite code, if the joiner's who-may-message-me lets the link's maker add them",
          {
            data: t.Object({ conversationId: t.String(), conversation: Conversation }),
            errors: ["FORBIDDEN"],
          },
        ),
      },
    )
    .patch(
      "/:cid",
      async ({ user, params, body }) => {
        const { conversation } = await group(params.cid, user.id);
        if (body.title === undefined && body.photoUrl === undefined && body.description === undefined) {
          const give = ["give title, description or photoUrl"];
          throw validationError({ title: give, description: give, photoUrl: give });
        }
        if (body.title !== undefined)
          await renameGroup(app, { conversationId: conversation.id, actorId: user.id, title: body.title });
        if (body.description !== undefined)
          await describeGroup(app, {
            conversationId: conversation.id,
            actorId: user.id,
            description: body.description,
          });
        if (body.photoUrl !== undefined) {
          const upload =
            body.photoUrl === null
              ? null
              : await resolveOwnUpload(app, body.photoUrl, user.id, ["chat-image", "avatar"], "photoUrl");
          await setGroupPhoto(app, {
            conversationId: conversation.id,
            actorId: user.id,
            photoUrl: upload?.url ?? null,
          });
          // in use now: the cleanup of abandoned uploads must keep it
          if (upload) await markAttached(app.db, upload.id, app.clock.now());
        }
        return ok({ conversation: await shown(conversation.id, user.id) });
      },
      {
        auth: true,
        body: UpdateBody,
        detail: doc("Rename a group, describe it or change its photo", {
          data: t.Object({ conversation: Conversation }),
          errors: ["PERMISSION_DENIED"],
        }),
      },
    )
    .get(
      "/:cid/members",
      async ({ user, params, query }) => {
        const { conversation } = await group(params.cid, user.id);
        const page = await listMembers(app, {
          conversationId: conversation.id,
          viewerId: user.id,
          cursor: query.cursor,
          limit: parseLimit(query.limit, 50, 200),
        });
        return ok({
          members: page.items.map((i) => serializeMember(i.member, i.user)),
          pageInfo: { nextCursor: page.nextCursor },
          nextCursor: page.nextCursor,
        });
      },
      {
        auth: true,
        query: PageQuery,
        detail: doc("A group's members", {
          data: t.Composite([Page("members", Member), t.Object({ nextCursor: NullableString })]),
          errors: ["PERMISSION_DENIED"],
        }),
      },
    )
    .post(
      "/:cid/members",
      async ({ user, params, body }) => {
        const { conversation } = await group(params.cid, user.id);
        const target = await requireUserByUsername(app.db, body.username);
        await addMember(app, { conversationId: conversation.id, actorId: user.id, userId: target.id });
        return ok({ conversation: await shown(conversation.id, user.id) });
      },
      {
        auth: true,
        body: MemberBody,
        detail: doc("Add a member (a bot receives my_chat_member)", {
          data: t.Object({ conversation: Conversation }),
          errors: ["PERMISSION_DENIED", "FORBIDDEN"],
        }),
      },
    )
    .delete(
      "/:cid/members/:username",
      async ({ user, params }) => {
        const { conversation } = await group(params.cid, user.id);
        const target = await requireUserByUsername(app.db, params.username);
        await removeMember(app, { conversationId: conversation.id, actorId: user.id, userId: target.id });
        return ok({ conversation: await shown(conversation.id, user.id) });
      },
      {
        auth: true,
        detail: doc("Remove a member", {
          data: t.Object({ conversation: Conversation }),
          errors: ["PERMISSION_DENIED"],
        }),
      },
    )
    .post(
      "/:cid/members/:username/promote",
      async ({ user, params, body }) => {
        const chosen = body.rights === undefined ? undefined : parseRights(body.rights);
        const membership = await group(params.cid, user.id);
        const target = await requireUserByUsername(app.db, params.username);
        let rights: Rights;
        if (chosen !== undefined) rights = chosen;
        else if (body.role === "administrator") rights = defaultAdminRights(membership);
        else if (body.role === "member") rights = {};
        else throw validationError({ rights: ["give rights or role"], role: ["give rights or role"] });
        const role = await promoteMember(app, {
          conversationId: membership.conversation.id,
          actorId: user.id,
          userId: target.id,
          rights,
        });
        return ok({ role, conversation: await shown(membership.conversation.id, user.id) });
      },
      {
        auth: true,
        body: PromoteBody,
        detail: doc("Make a member an administrator (role or rights) or a plain member again", {
          data: t.Object({ role: t.String(), conversation: Conversation }),
          errors: ["PERMISSION_DENIED"],
        }),
      },
    )
    .post(
      "/:cid/leave",
      async ({ user, params }) => {
        const { conversation } = await group(params.cid, user.id);
        await leaveGroup(app, { conversationId: conversation.id, userId: user.id });
        return ok({});
      },
      { auth: true, detail: doc("Leave a group") },
    )
    .post(
      "/:cid/invite",
      async ({ user, params }) => {
        const { conversation } = await group(params.cid, user.id);
        return ok(await createInvite(app, { conversationId: conversation.id, actorId: user.id }));
      },
      {
        auth: true,
        detail: doc("An invite link to the group", {
          data: t.Object({ code: t.String(), inviteLink: t.String() }),
          errors: ["PERMISSION_DENIED"],
        }),
      },
    );
}
