import type { CommentView } from "../../domain/comments/service";
import type { PostView } from "../../domain/posts/view";
import { toIso } from "../../lib/clock";
import { serializePublicUser } from "../serializers/account";

/** A post as the Client API shows it to the viewer it was loaded for. */
export function serializePost(v: PostView): Record<string, unknown> {
  const p = v.row;
  return {
    id: p.cuid,
    content: p.content,
    author: serializePublicUser(v.author),
    images: v.images.map((i) => ({
      url: i.url,
      kind: i.kind,
      mime: i.mime,
      width: i.width,
      height: i.height,
      thumbUrl: i.thumbUrl,
      posterUrl: i.posterUrl,
    })),
    poll: v.poll && {
      id: v.poll.cuid,
      question: v.poll.question,
      multiple: v.poll.multiple,
      options: v.poll.options.map((o) => ({ id: o.cuid, index: o.position, text: o.text, votes: o.votes })),
      totalVoters: v.poll.voterCount,
      myVotes: v.poll.myVotes,
      voted: v.poll.myVotes.length > 0,
    },
    likeCount: v.likeCount,
    commentCount: v.commentCount,
    repostCount: v.repostCount,
    liked: v.liked,
    bookmarked: v.bookmarked,
    reposted: v.reposted,
    isRepost: p.repost_of_id !== null,
    repostOf: v.repostOf ? serializePost(v.repostOf) : null,
    // the idempotency key is the author's own business
    ...(v.own ? { clientPostId: p.client_post_id } : {}),
    createdAt: toIso(p.created_at),
    editedAt: p.edited_at === null ? null : toIso(p.edited_at),
  };
}

/** A comment as the Client API shows it. */
export function serializeComment(v: CommentView) {
  return {
    id: v.row.cuid,
    postId: v.postCuid,
    replyToId: v.replyToCuid,
    content: v.row.content,
    media: v.media,
    author: serializePublicUser(v.author),
    likeCount: v.likeCount,
    replyCount: v.replyCount,
    liked: v.liked,
    createdAt: toIso(v.row.created_at),
  };
}
