import type { CommentCore, CommentView } from "../../domain/comments/service";
import type { PostAuthor, PostCore, PostView } from "../../domain/posts/view";
import { toIso } from "../../lib/clock";
import { serializePublicUser } from "../serializers/account";

/** The part of a post's Client API shape that is the same for every reader, per kept core. */
interface SharedShape {
  id: string;
  content: string;
  images: Array<Record<string, unknown>>;
  likeCount: number;
  commentCount: number;
  repostCount: number;
  isRepost: boolean;
  createdAt: string;
  editedAt: string | null;
}

// made once per core (cores are kept by the App and never changed, so the shape lives as long as its core)
const sharedShapes = new WeakMap<PostCore, SharedShape>();
const authorShapes = new WeakMap<PostAuthor, ReturnType<typeof serializePublicUser>>();

function sharedShapeOf(core: PostCore): SharedShape {
  let shape = sharedShapes.get(core);
  if (shape) return shape;
  const p = core.row;
  shape = {
    id: p.cuid,
    content: p.content,
    images: core.images.map((i) => ({
      url: i.url,
      kind: i.kind,
      mime: i.mime,
      width: i.width,
      height: i.height,
      thumbUrl: i.thumbUrl,
      posterUrl: i.posterUrl,
    })),
    likeCount: core.likeCount,
    commentCount: core.commentCount,
    repostCount: core.repostCount,
    isRepost: p.repost_of_id !== null,
    createdAt: toIso(p.created_at),
    editedAt: p.edited_at === null ? null : toIso(p.edited_at),
  };
  sharedShapes.set(core, shape);
  return shape;
}

function authorShapeOf(author: PostAuthor) {
  let shape = authorShapes.get(author);
  if (!shape) authorShapes.set(author, (shape = serializePublicUser(author)));
  return shape;
}

/**
 * A post as the Client API shows it to the viewer it was loaded for. The parts every reader
 * sees alike are made once per kept core and author and shared by every answer that shows them
 * (JSON.stringify only reads them).
 */
export function serializePost(v: PostView): Record<string, unknown> {
  const s = sharedShapeOf(v.core);
  return {
    id: s.id,
    content: s.content,
    author: authorShapeOf(v.author),
    images: s.images,
    poll: v.poll && {
      id: v.poll.cuid,
      question: v.poll.question,
      multiple: v.poll.multiple,
      options: v.poll.options.map((o) => ({ id: o.cuid, index: o.position, text: o.text, votes: o.votes })),
      totalVoters: v.poll.voterCount,
      myVotes: v.poll.myVotes,
      voted: v.poll.myVotes.length > 0,
    },
    likeCount: s.likeCount,
    commentCount: s.commentCount,
    repostCount: s.repostCount,
    liked: v.liked,
    bookmarked: v.bookmarked,
    reposted: v.reposted,
    isRepost: s.isRepost,
    repostOf: v.repostOf ? serializePost(v.repostOf) : null,
    // the idempotency key is the author's own business
    ...(v.own ? { clientPostId: v.row.client_post_id } : {}),
    createdAt: s.createdAt,
    editedAt: s.editedAt,
  };
}

// a comment's shape every reader sees alike, made once per kept core
const commentShapes = new WeakMap<CommentCore, { id: string; content: string; createdAt: string }>();

/** A comment as the Client API shows it (the parts every reader sees alike made once per kept core and author). */
export function serializeComment(v: CommentView) {
  let shared = commentShapes.get(v.core);
  if (!shared)
    commentShapes.set(
      v.core,
      (shared = { id: v.core.row.cuid, content: v.core.row.content, createdAt: toIso(v.core.row.created_at) }),
    );
  return {
    id: shared.id,
    postId: v.postCuid,
    replyToId: v.replyToCuid,
    content: shared.content,
    media: v.media,
    author: authorShapeOf(v.author),
    likeCount: v.likeCount,
    replyCount: v.replyCount,
    liked: v.liked,
    createdAt: shared.createdAt,
  };
}
