import { useCallback, useEffect, useState } from "preact/hooks";
import { ReportButton } from "../../components/report";
import { Avatar } from "../../components/avatar";
import { Dialog } from "../../components/dialog";
import { FormError } from "../../components/field";
import { Loading, Page } from "../../components/page";
import { api, describeError } from "../../lib/api";
import { formatCount, formatDate } from "../../lib/format";
import { t } from "../../lib/i18n";
import { usePagedList } from "../../lib/paged";
import { account } from "../../lib/session";
import type { PageInfo, Post, Profile } from "../../lib/types";
import { useAction } from "../../lib/use-action";
import { PostList } from "../feed/post-list";
import { RichText } from "../feed/rich-text";
import { MediaGallery } from "./media-gallery";
import { getProfile, toggleBlock, toggleFollow, toggleMute } from "./profile-api";

/** Follow, mute and block: each a toggle that says its state; blocking asks first. */
function Relations({ profile, onChange }: { profile: Profile; onChange: (p: Profile) => void }) {
  const { error, run, busy } = useAction();
  const [confirmBlock, setConfirmBlock] = useState(false);
  const follow = run(async () => {
    const r = await toggleFollow(profile.username);
    onChange({ ...profile, isFollowing: r.following, followersCount: r.followersCount });
  });
  const mute = run(async () => onChange({ ...profile, isMuted: (await toggleMute(profile.username)).muted }));
  const block = run(async () => {
    const r = await toggleBlock(profile.username);
    setConfirmBlock(false);
    // blocking removes follows both ways
    onChange({
      ...profile,
      isBlocked: r.blocked,
      isFollowing: r.blocked ? false : profile.isFollowing,
      followsYou: r.blocked ? false : profile.followsYou,
    });
  });
  return (
    <>
      <div class="actions">
        {!profile.isBlocked && (
          <button
            type="button"
            class={profile.isFollowing ? "" : "primary"}
            aria-pressed={profile.isFollowing}
            disabled={busy}
            onClick={follow}
          >
            {profile.isFollowing ? t("people.profile.following") : t("people.profile.follow")}
          </button>
        )}
        {!profile.isBlocked && (
          <a class="button" href={`/dashboard/messages?user=${encodeURIComponent(profile.username)}`}>
            {t("people.profile.message")}
          </a>
        )}
        <button type="button" aria-pressed={profile.isMuted} disabled={busy} onClick={mute}>
          {profile.isMuted ? t("people.profile.muted") : t("people.profile.mute")}
        </button>
        <button
          type="button"
          class="danger"
          aria-pressed={profile.isBlocked}
          disabled={busy}
          onClick={() => (profile.isBlocked ? block() : setConfirmBlock(true))}
        >
          {profile.isBlocked ? t("people.profile.blocked") : t("people.profile.block")}
        </button>
        <ReportButton
          target={
            profile.isBot
              ? {
                  type: "bot",
                  id: profile.username,
                  label: t("people.profile.reportBot", { username: profile.username }),
                }
              : { type: "user", id: profile.username, label: `@${profile.username}` }
          }
        />
      </div>
      <FormError message={error ? describeError(error) : null} />
      {confirmBlock && (
        <Dialog
          open
          title={t("people.profile.blockTitle", { username: profile.username })}
          onClose={() => setConfirmBlock(false)}
        >
          <p>{t("people.profile.blockText")}</p>
          <div class="actions">
            <button type="button" class="danger" disabled={busy} onClick={() => block()}>
              {t("people.profile.block")}
            </button>
            <button type="button" autoFocus onClick={() => setConfirmBlock(false)}>
              {t("common.cancel")}
            </button>
          </div>
        </Dialog>
      )}
    </>
  );
}

/** A person's posts, newest first, paged as the end comes into view. */
function ProfilePosts({ username, empty }: { username: string; empty: string }) {
  const load = useCallback(
    async (cursor: string | null) => {
      const r = await api.get<{ posts: Post[]; pageInfo: PageInfo }>(
        `/social/users/${encodeURIComponent(username)}/posts`,
        { cursor },
      );
      return { items: r.posts, nextCursor: r.pageInfo.nextCursor };
    },
    [username],
  );
  return <PostList list={usePagedList<Post>(username, load)} empty={empty} />;
}

/** /users/:username: cover, avatar, bio, counts, relations, and their posts or (/media) their pictures. */
export function ProfileScreen({ username, section = "posts" }: { username: string; section?: "posts" | "media" }) {
  const [profile, setProfile] = useState<Profile | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setProfile(null);
    setError(null);
    getProfile(username).then(setProfile, (err) => setError(describeError(err)));
  }, [username]);
  const me = account.value;
  const mine = me?.username.toLowerCase() === username.toLowerCase();

  if (!profile) {
    return <Page title={`@${username}`}>{error ? <FormError message={error} /> : <Loading />}</Page>;
  }
  const name = profile.displayName || profile.username;
  return (
    <Page title={name} heading={<>{name}</>}>
      <div class="card profile">
        {profile.coverVideoUrl ? (
          <video
            class="cover"
            src={profile.coverVideoUrl}
            autoPlay
            muted
            loop
            playsInline
            aria-label={t("people.profile.coverVideo")}
          />
        ) : profile.coverUrl ? (
          <img class="cover" src={profile.coverUrl} alt={t("people.profile.coverPicture")} />
        ) : (
          <div class="cover cover-empty" />
        )}
        <div class="profile-head">
          <Avatar user={profile} size={96} />
          <div>
            <p class="profile-username">
              @{profile.username}
              {profile.isBot && <span class="badge">{t("people.profile.bot")}</span>}
              {profile.followsYou && <span class="badge">{t("people.profile.followsYou")}</span>}
            </p>
            <p class="muted">{t("people.profile.joined", { date: formatDate(profile.createdAt) })}</p>
          </div>
        </div>
        {profile.bio && <RichText text={profile.bio} />}
        <ul class="counts" aria-label={t("people.profile.counts")}>
          <li>
            <strong>{formatCount(profile.postsCount)}</strong>{" "}
            {t("people.profile.posts", { count: profile.postsCount })}
          </li>
          <li>
            <a href={`/users/${profile.username}/followers`}>
              <strong>{formatCount(profile.followersCount)}</strong>{" "}
              {t("people.profile.followers", { count: profile.followersCount })}
            </a>
          </li>
          <li>
            <a href={`/users/${profile.username}/following`}>
              <strong>{formatCount(profile.followingCount)}</strong>{" "}
              {t("people.profile.followingCount", { count: profile.followingCount })}
            </a>
          </li>
        </ul>
        {mine ? (
          <p>
            <a class="button" href="/profile/edit">
              {t("people.profile.edit")}
            </a>
          </p>
        ) : (
          <Relations profile={profile} onChange={setProfile} />
        )}
      </div>
      <nav class="profile-sections" aria-label={t("people.profile.sections")}>
        <a href={`/users/${profile.username}`} aria-current={section === "posts" ? "page" : undefined}>
          {t("people.profile.postsTab")}
        </a>
        <a href={`/users/${profile.username}/media`} aria-current={section === "media" ? "page" : undefined}>
          {t("people.profile.mediaTab")}
        </a>
      </nav>
      {section === "posts" ? (
        <>
          <h2>{t("people.profile.postsTab")}</h2>
          <ProfilePosts
            username={profile.username}
            empty={mine ? t("people.profile.noPostsMine") : t("people.profile.noPosts", { username: profile.username })}
          />
        </>
      ) : (
        <>
          <h2>{t("people.profile.mediaTab")}</h2>
          <MediaGallery username={profile.username} name={name} />
        </>
      )}
    </Page>
  );
}

/** A profile with its media gallery shown (/users/:username/media). */
export const ProfileMediaScreen = ({ username }: { username: string }) => (
  <ProfileScreen username={username} section="media" />
);
