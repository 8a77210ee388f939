import { api } from "../../lib/api";
import type { FollowUser, PageInfo, Profile } from "../../lib/types";

export const getProfile = async (username: string) =>
  (await api.get<{ profile: Profile }>(`/social/users/${encodeURIComponent(username)}`)).profile;

export const toggleFollow = (username: string) =>
  api.post<{ following: boolean; followersCount: number }>(`/social/users/${encodeURIComponent(username)}/follow`);
export const toggleBlock = (username: string) =>
  api.post<{ blocked: boolean }>(`/social/users/${encodeURIComponent(username)}/block`);
export const toggleMute = (username: string) =>
  api.post<{ muted: boolean }>(`/social/users/${encodeURIComponent(username)}/mute`);

export async function listPeople(username: string, which: "followers" | "following", cursor: string | null) {
  const r = await api.get<{ users: FollowUser[]; pageInfo: PageInfo }>(
    `/social/users/${encodeURIComponent(username)}/${which}`,
    { cursor },
  );
  return { items: r.users, nextCursor: r.pageInfo.nextCursor };
}
