import type { ProfileUser, ProfileView } from "../../domain/profiles/service";
import { toIso } from "../../lib/clock";
import { jsonText, type SetHeaders } from "../../http/envelope";
import { serializePublicUser } from "../serializers/account";

/** A profile as the Client API shows it (no e-mail or security settings, even one's own). */
export function serializeProfile(v: ProfileView) {
  return {
    ...serializePublicUser(v.user),
    bio: v.user.bio,
    coverUrl: v.user.cover_url,
    coverVideoUrl: v.user.cover_video_url,
    followersCount: v.followersCount,
    followingCount: v.followingCount,
    postsCount: v.postsCount,
    isFollowing: v.isFollowing,
    followsYou: v.followsYou,
    isBlocked: v.isBlocked,
    isMuted: v.isMuted,
    createdAt: toIso(v.user.created_at),
  };
}

/** The JSON of a profile's kept columns, before and after its counters and relations, made once per kept value. */
const shownJsons = new WeakMap<Readonly<ProfileUser>, { head: string; tail: string }>();

/**
 * The success envelope of `{profile}` as JSON text, the account's shown columns written once per
 * kept value (ProfileView.user) and the counters and relations around them; SET gets the JSON
 * content type, so Elysia sends the text as it is. The same bytes as returning
 * ok({ profile: serializeProfile(v) }).
 */
export function profileJson(set: SetHeaders, v: ProfileView): string {
  let shown = shownJsons.get(v.user);
  if (!shown) {
    const u = v.user;
    const head = JSON.stringify({
      ...serializePublicUser(u),
      bio: u.bio,
      coverUrl: u.cover_url,
      coverVideoUrl: u.cover_video_url,
    });
    shown = { head: head.slice(0, -1), tail: `,"createdAt":${JSON.stringify(toIso(u.created_at))}}` };
    shownJsons.set(u, shown);
  }
  return jsonText(
    set,
    `{"success":true,"data":{"profile":${shown.head},"followersCount":${v.followersCount},"followingCount":${v.followingCount},"postsCount":${v.postsCount},"isFollowing":${v.isFollowing},"followsYou":${v.followsYou},"isBlocked":${v.isBlocked},"isMuted":${v.isMuted}${shown.tail}}}`,
  );
}
