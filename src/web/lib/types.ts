/** Shapes of the Client API's answers, as docs/client-api.md documents them (unknown extra fields are ignored). */

export interface Account {
  id: string;
  username: string;
  email: string | null;
  displayName: string;
  bio: string | null;
  avatarUrl: string | null;
  coverUrl: string | null;
  coverVideoUrl: string | null;
  isBot: boolean;
  isAdmin: boolean;
  emailVerified: boolean;
  twoFactorMethod: "none" | "totp" | "email" | "messenger";
  /** the language chosen in Settings (null: none chosen) */
  language?: string | null;
  createdAt: string;
}

export interface PublicUser {
  id: string;
  username: string;
  displayName: string;
  avatarUrl: string | null;
  isBot: boolean;
}

export interface PageInfo {
  nextCursor: string | null;
}

export interface PostImage {
  url: string;
  kind: string;
  mime: string;
  width: number | null;
  height: number | null;
  thumbUrl: string | null;
  posterUrl: string | null;
  renditions?: Rendition[];
  alt?: string;
}

/** A display copy of an image (smaller WebP), for srcset. */
export interface Rendition {
  url: string;
  width: number;
  height: number;
}

export interface PollOption {
  id: string;
  index: number;
  text: string;
  votes: number;
}

export interface Poll {
  id: string;
  question: string | null;
  multiple: boolean;
  options: PollOption[];
  totalVoters: number;
  myVotes: string[];
  voted: boolean;
}

/** What a link's page says of itself, read by the server (the Client API's LinkPreview). */
export interface LinkPreview {
  url: string;
  title: string | null;
  description: string | null;
  imageUrl: string | null;
  siteName: string | null;
}

export interface Post {
  id: string;
  content: string;
  contentWarning: string | null;
  author: PublicUser;
  images: PostImage[];
  /** null while the server reads the page, when removed, or when the page gave nothing */
  linkPreview: LinkPreview | null;
  poll: Poll | null;
  likeCount: number;
  commentCount: number;
  repostCount: number;
  liked: boolean;
  bookmarked: boolean;
  reposted: boolean;
  isRepost: boolean;
  repostOf: Post | null;
  createdAt: string;
  editedAt: string | null;
}

export interface Comment {
  id: string;
  postId: string;
  replyToId: string | null;
  content: string;
  contentWarning: string | null;
  media: Array<{
    type: "image" | "video" | "voice";
    url: string;
    mime: string | null;
    width: number | null;
    height: number | null;
    durationMs: number | null;
    thumbUrl: string | null;
    posterUrl: string | null;
    renditions?: Rendition[];
    alt?: string;
  }>;
  author: PublicUser;
  likeCount: number;
  replyCount: number;
  liked: boolean;
  createdAt: string;
}

export type QrStatus = "PENDING" | "APPROVED" | "CLAIMED" | "EXPIRED" | "REFUSED";
