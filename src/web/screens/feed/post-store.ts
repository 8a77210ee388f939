import { api } from "../../lib/api";
import type { Post } from "../../lib/types";

/** The post actions every list and the post view share; each answers the post's new state. */

export async function toggleLike(post: Post): Promise<Post> {
  const r = await api.post<{ liked: boolean; likeCount: number }>(`/social/posts/${post.id}/like`);
  return { ...post, liked: r.liked, likeCount: r.likeCount };
}

export async function toggleRepost(post: Post): Promise<Post> {
  const r = await api.post<{ reposted: boolean; repostCount: number }>(`/social/posts/${post.id}/repost`);
  return { ...post, reposted: r.reposted, repostCount: r.repostCount };
}

export async function toggleBookmark(post: Post): Promise<Post> {
  const r = await api.post<{ bookmarked: boolean }>(`/social/posts/${post.id}/bookmark`);
  return { ...post, bookmarked: r.bookmarked };
}

export async function votePoll(post: Post, optionIds: string[]): Promise<Post> {
  const r = await api.post<{ post: Post }>(`/social/posts/${post.id}/poll/vote`, { optionIds });
  return r.post;
}

/** Changes the viewer's own post: its text and the files it carries (kept, removed, added). */
export async function editPost(
  post: Post,
  change: { content: string; contentWarning: string | null; imageUrls: string[]; imageAlts: string[] },
): Promise<Post> {
  return (await api.patch<{ post: Post }>(`/social/posts/${post.id}`, change)).post;
}

/** Deletes the viewer's own post, or, AS_ADMIN, removes anyone's through the admin API (audited). */
export async function deletePost(post: Post, asAdmin = false): Promise<void> {
  await api.delete(asAdmin ? `/admin/content/posts/${post.id}` : `/social/posts/${post.id}`);
}

/** The post a card shows: a repost shows its original. */
export const shown = (post: Post): Post => (post.isRepost && post.repostOf ? post.repostOf : post);

/** OUTER with the post its card shows replaced by NEXT: a repost keeps its own fields around the new original. */
export const withShown = (outer: Post, next: Post): Post =>
  outer.isRepost && outer.repostOf ? { ...outer, repostOf: { ...next, repostOf: null } } : next;
