import type { UserRow } from "../../domain/users/table";
import { jsonText, type SetHeaders } from "../../http/envelope";
import { toIso } from "../../lib/clock";

/** The signed-in person's own account, as the Client API shows it. */
export function serializeAccount(user: UserRow) {
  return {
    id: user.cuid,
    username: user.username,
    email: user.email,
    displayName: user.display_name,
    bio: user.bio,
    avatarUrl: user.avatar_url,
    coverUrl: user.cover_url,
    coverVideoUrl: user.cover_video_url,
    isBot: user.is_bot === 1,
    isAdmin: user.is_admin === 1,
    emailVerified: user.email_verified_at !== null,
    twoFactorMethod: user.two_factor_method,
    language: user.language,
    createdAt: toIso(user.created_at),
  };
}

/** The JSON of accounts' own views, by the row they were made from (a signed-in request's row is kept and frozen: SessionCache). */
const accountJsons = new WeakMap<UserRow, string>();

/**
 * The success envelope of `{account: serializeAccount(USER)}` as JSON text, the account's JSON
 * made once per row object (shared by the requests of a kept session until its account changes);
 * SET gets the JSON content type, so Elysia sends the text as it is. The same bytes as returning
 * ok({ account: serializeAccount(user) }).
 */
export function accountJson(set: SetHeaders, user: UserRow): string {
  let account = accountJsons.get(user);
  if (account === undefined) accountJsons.set(user, (account = JSON.stringify(serializeAccount(user))));
  return jsonText(set, `{"success":true,"data":{"account":${account}}}`);
}

/** Another account as anyone may see it: no e-mail, no security settings. */
export function serializePublicUser(
  user: Pick<UserRow, "cuid" | "username" | "display_name" | "avatar_url" | "is_bot">,
) {
  return {
    id: user.cuid,
    username: user.username,
    displayName: user.display_name,
    avatarUrl: user.avatar_url,
    isBot: user.is_bot === 1,
  };
}
