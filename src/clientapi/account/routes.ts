import { doc } from "../docs";
import { Account, LANGUAGE_DESCRIPTION, MessageSettings, Profile } from "../schemas";
import { Elysia, t } from "elysia";
import type { App } from "../../app";
import { deleteAccount } from "../../domain/account/delete";
import { BIO_MAX, DISPLAY_NAME_MAX, updateProfile } from "../../domain/profiles/edit";
import { cachedProfilesOf, loadProfile } from "../../domain/profiles/service";
import { getSettings, updateSettings } from "../../domain/settings/service";
import { addSetCookies, requestContext } from "../../http/context";
import { clearCookie, ACCESS_COOKIE, REFRESH_COOKIE } from "../../http/cookies";
import { ok } from "../../http/envelope";
import { serializeAccount } from "../serializers/account";
import { serializeProfile } from "../people/serialize";
import { buildAccountExport } from "./export";
import { inTransaction } from "../../db/transaction";
import { requireLanguage } from "../../domain/users/language";

const PictureUrl = t.Union([t.String({ minLength: 1, maxLength: 1024 }), t.Null()]);
const ProfileBody = t.Object({
  displayName: t.Optional(t.String({ maxLength: DISPLAY_NAME_MAX * 4 })),
  bio: t.Optional(t.String({ maxLength: BIO_MAX * 4 })),
  avatarUrl: t.Optional(PictureUrl),
  coverUrl: t.Optional(PictureUrl),
  coverVideoUrl: t.Optional(PictureUrl),
});
const SettingsBody = t.Object({
  whoCanMessage: t.Optional(t.Union([t.Literal("everyone"), t.Literal("followed"), t.Literal("nobody")])),
  botsMayWriteFirst: t.Optional(t.Boolean()),
  // any short text, so a code the server does not have is told apart (400, naming the field) from a malformed body
  language: t.Optional(t.Union([t.String({ maxLength: 35 }), t.Null()], { description: LANGUAGE_DESCRIPTION })),
});
const DeleteBody = t.Object({ password: t.String({ minLength: 1, maxLength: 128 }) });

/** The signed-in person's own account: profile, settings, export, deletion (/api/account/*). */
export function accountRoutes(app: App) {
  return new Elysia({ name: "client-account" })
    .use(requestContext(app))
    .patch(
      "/profile",
      async ({ body, user }) => {
        const updated = await updateProfile(app, user, body);
        return ok({
          account: serializeAccount(updated),
          profile: serializeProfile(await loadProfile(app.db, cachedProfilesOf(app), updated.id, updated)),
        });
      },
      {
        auth: true,
        body: ProfileBody,
        detail: doc(
          "Edit the profile: display name, bio, avatar, cover picture or video (URLs from /api/account/upload)",
          {
            data: t.Object({ account: Account, profile: Profile }),
          },
        ),
      },
    )
    .get("/settings", async ({ user }) => ok({ settings: await getSettings(app.db, user.id) }), {
      auth: true,
      detail: doc("The account's settings", { data: t.Object({ settings: MessageSettings }) }),
    })
    .patch(
      "/settings",
      async ({ body: { language, ...body }, user }) => {
        const patch = language === undefined ? body : { ...body, language: requireLanguage("language", language) };
        return ok({
          settings: await inTransaction(app.storage, (scope) =>
            updateSettings(scope.db, app.clock.now(), user.id, patch),
          ),
        });
      },
      {
        auth: true,
        body: SettingsBody,
        detail: doc(
          "Change settings: who may message me (everyone, followed, nobody), whether bots may write first, and the language the server writes to me in",
          {
            data: t.Object({ settings: MessageSettings }),
          },
        ),
      },
    )
    .get(
      "/export",
      async ({ user, set }) => {
        set.headers["cache-control"] = "no-store";
        return ok({ export: await buildAccountExport(app, user) });
      },
      {
        auth: true,
        detail: doc("Everything the account wrote and holds, as one JSON document", {
          data: t.Object({ export: t.Object({}, { additionalProperties: true }) }),
        }),
      },
    )
    .delete(
      "/",
      async ({ body, user, set }) => {
        await deleteAccount(app, user, body.password);
        addSetCookies(set as never, [clearCookie(app, ACCESS_COOKIE), clearCookie(app, REFRESH_COOKIE)]);
        return ok({ deleted: true });
      },
      {
        auth: true,
        body: DeleteBody,
        detail: doc("Delete the account (needs the password)", {
          data: t.Object({ deleted: t.Literal(true) }),
          errors: ["INVALID_CREDENTIALS"],
        }),
      },
    );
}
