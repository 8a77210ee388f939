import type { CommentCore, CommentView } from "../../domain/comments/service";
import type { PollView, PostAuthor, PostCore, PostView } from "../../domain/posts/view";
import { toIso } from "../../lib/clock";
import { serializePublicUser } from "../serializers/account";
import type { Rendition } from "../../media/table";
import type { CommentMedia } from "../../domain/comments/table";
import { shownPreview, type LinkPreview } from "../../domain/links/preview";
import { flat } from "../../lib/flat-string";

/** The part of a post's Client API shape that is the same for every reader, per kept core. */
interface SharedShape {
  id: string;
  content: string;
  contentWarning: string | null;
  images: Array<Record<string, unknown>>;
  linkPreview: LinkPreview | null;
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
    contentWarning: p.content_warning,
    images: core.images.map((i) => ({
      url: i.url,
      kind: i.kind,
      mime: i.mime,
      width: i.width,
      height: i.height,
      thumbUrl: i.thumbUrl,
      posterUrl: i.posterUrl,
      ...(i.renditions ? { renditions: i.renditions.map(renditionShape) } : {}),
      ...(i.alt !== undefined ? { alt: i.alt } : {}),
    })),
    linkPreview: shownPreview(p.link_preview),
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

/** A post's poll as its reader sees it (counts and the reader's votes are read per answer). */
const pollShape = (poll: PollView) => ({
  id: poll.cuid,
  question: poll.question,
  multiple: poll.multiple,
  options: poll.options.map((o) => ({ id: o.cuid, index: o.position, text: o.text, votes: o.votes })),
  totalVoters: poll.voterCount,
  myVotes: poll.myVotes,
  voted: poll.myVotes.length > 0,
});

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
    contentWarning: s.contentWarning,
    author: authorShapeOf(v.author),
    images: s.images,
    linkPreview: s.linkPreview,
    poll: v.poll && pollShape(v.poll),
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

/** A display rendition as the Client API shows it (its byte size is the Bot API's business). */
export const renditionShape = (r: Rendition) => ({ url: r.url, width: r.width, height: r.height });

// a comment's shape every reader sees alike, made once per kept core
const commentShapes = new WeakMap<
  CommentCore,
  {
    id: string;
    content: string;
    contentWarning: string | null;
    media: Array<Omit<CommentMedia, "renditions"> & { renditions?: Array<ReturnType<typeof renditionShape>> }>;
    createdAt: string;
  }
>();

/** A post's JSON every reader sees alike, cut where the reader's own parts go in (see postJson). */
interface SharedJson {
  /** `{"id":…,"content":…,"author":` */
  head: string;
  /** `,"images":[…],"linkPreview":…,"poll":` */
  images: string;
  /** `,"likeCount":…,"commentCount":…,"repostCount":…,"liked":` */
  counts: string;
  /** `,"isRepost":…,"repostOf":` */
  repost: string;
  /** `,"clientPostId":…` (only the author sees it) */
  clientPostId: string;
  /** `,"createdAt":…,"editedAt":…}` */
  tail: string;
  /** whole texts of the post without a poll or an original to show, by AUTHOR and the reader's marks (see postJson) */
  whole: { author: PostAuthor; texts: Array<string | undefined> } | null;
}

const sharedJsons = new WeakMap<PostCore, SharedJson>();
const authorJsons = new WeakMap<PostAuthor, string>();
const J = JSON.stringify;

function sharedJsonOf(core: PostCore): SharedJson {
  let json = sharedJsons.get(core);
  if (json) return json;
  const s = sharedShapeOf(core);
  json = {
    head: `{"id":${J(s.id)},"content":${J(s.content)},"contentWarning":${J(s.contentWarning)},"author":`,
    images: `,"images":${J(s.images)},"linkPreview":${J(s.linkPreview)},"poll":`,
    counts: `,"likeCount":${s.likeCount},"commentCount":${s.commentCount},"repostCount":${s.repostCount},"liked":`,
    repost: `,"isRepost":${s.isRepost},"repostOf":`,
    clientPostId: `,"clientPostId":${J(core.row.client_post_id)}`,
    tail: `,"createdAt":${J(s.createdAt)},"editedAt":${J(s.editedAt)}}`,
    whole: null,
  };
  sharedJsons.set(core, json);
  return json;
}

/**
 * JSON.stringify(serializePost(V)), byte for byte, from text made once per kept core and author:
 * only the reader's own parts (marks, poll, the original of a repost) are written per answer.
 * A post without a poll or an original to show (most of a page) is one text kept per core for
 * each combination of the reader's marks, so a page is a few dozen flat strings: writing out
 * a page joined from hundreds of pieces costs clearly more than the same text in few.
 */
export function postJson(v: PostView): string {
  const j = sharedJsonOf(v.core);
  if (v.poll === null && v.repostOf === null) {
    const marks = (v.liked ? 1 : 0) | (v.bookmarked ? 2 : 0) | (v.reposted ? 4 : 0) | (v.own ? 8 : 0);
    // a new kept author (its profile changed) replaces the texts written with the one before
    if (j.whole === null || j.whole.author !== v.author) j.whole = { author: v.author, texts: [] };
    return (j.whole.texts[marks] ??= flat(writePostJson(j, v)));
  }
  return writePostJson(j, v);
}

function writePostJson(j: SharedJson, v: PostView): string {
  let author = authorJsons.get(v.author);
  if (author === undefined) authorJsons.set(v.author, (author = J(authorShapeOf(v.author))));
  return (
    j.head +
    author +
    j.images +
    (v.poll ? J(pollShape(v.poll)) : "null") +
    j.counts +
    v.liked +
    ',"bookmarked":' +
    v.bookmarked +
    ',"reposted":' +
    v.reposted +
    j.repost +
    (v.repostOf ? postJson(v.repostOf) : "null") +
    (v.own ? j.clientPostId : "") +
    j.tail
  );
}

/** A comment as the Client API shows it (the parts every reader sees alike made once per kept core and author). */
export function serializeComment(v: CommentView) {
  let shared = commentShapes.get(v.core);
  if (!shared)
    commentShapes.set(
      v.core,
      (shared = {
        id: v.core.row.cuid,
        content: v.core.row.content,
        contentWarning: v.core.row.content_warning,
        media: v.core.media.map((m) => (m.renditions ? { ...m, renditions: m.renditions.map(renditionShape) } : m)),
        createdAt: toIso(v.core.row.created_at),
      }),
    );
  return {
    id: shared.id,
    postId: v.postCuid,
    replyToId: v.replyToCuid,
    content: shared.content,
    contentWarning: shared.contentWarning,
    media: shared.media,
    author: authorShapeOf(v.author),
    likeCount: v.likeCount,
    replyCount: v.replyCount,
    liked: v.liked,
    createdAt: shared.createdAt,
  };
}

/** A comment's whole JSON text as last written for its core, with what it was written with besides the core. */
interface CommentJson {
  author: PostAuthor;
  postCuid: string;
  replyToCuid: string | null;
  replyCount: number;
  /** [not liked, liked] by the reader */
  texts: [string | undefined, string | undefined];
}

const commentJsons = new WeakMap<CommentCore, CommentJson>();

/**
 * JSON.stringify(serializeComment(V)), written once per kept core for its author, place, reply
 * count and the reader's like, and reused while those stay the same.
 */
export function commentJson(v: CommentView): string {
  let j = commentJsons.get(v.core);
  if (
    j === undefined ||
    j.author !== v.author ||
    j.replyCount !== v.replyCount ||
    j.postCuid !== v.postCuid ||
    j.replyToCuid !== v.replyToCuid
  ) {
    j = {
      author: v.author,
      postCuid: v.postCuid,
      replyToCuid: v.replyToCuid,
      replyCount: v.replyCount,
      texts: [undefined, undefined],
    };
    commentJsons.set(v.core, j);
  }
  return (j.texts[v.liked ? 1 : 0] ??= flat(J(serializeComment(v))));
}
