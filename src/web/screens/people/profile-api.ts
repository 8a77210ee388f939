import { api } from "../../lib/api";
import type { PageInfo } from "../../lib/types";

/** A person's profile as GET /api/social/users/{username} shows it. */
export interface Profile {
  id: string;
  username: string;
  displayName: string;
  bio: string | null;
  avatarUrl: string | null;
  coverUrl: string | null;
  coverVideoUrl: string | null;
  isBot: boolean;
  followersCount: number;
  followingCount: number;
  postsCount: number;
  isFollowing: boolean;
  followsYou: boolean;
  isBlocked: boolean;
  isMuted: boolean;
  createdAt: string;
}

/** A row of a followers / following list. */
export interface PersonRow {
  id: string;
  username: string;
  displayName: string;
  avatarUrl: string | null;
  isBot: boolean;
  bio: string | null;
  isFollowing: boolean;
}

export const getProfile = async (username: string) =>
  (await api.get<{ profile: Profile }>(`/social/users/${encodeURIComponent(username)}`)).profile;

export const toggleFollow = (username: string) =>
  api.post<{ following: boolean; followersCount: number }>(`/social/users/${encodeURIComponent(username)}/follow`);
export const toggleBlock = (username: string) =>
  api.post<{ blocked: boolean }>(`/social/users/${encodeURIComponent(username)}/block`);
export const toggleMute = (username: string) =>
  api.post<{ muted: boolean }>(`/social/users/${encodeURIComponent(username)}/mute`);

export async function listPeople(username: string, which: "followers" | "following", cursor: string | null) {
  const r = await api.get<{ users: PersonRow[]; pageInfo: PageInfo }>(
    `/social/users/${encodeURIComponent(username)}/${which}`,
    { cursor },
  );
  return { items: r.users, nextCursor: r.pageInfo.nextCursor };
}
