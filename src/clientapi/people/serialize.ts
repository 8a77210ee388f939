import type { ProfileView } from "../../domain/profiles/service";
import { toIso } from "../../lib/clock";
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
