import { useCallback, useState } from "preact/hooks";
import { Avatar } from "../../components/avatar";
import { FormError } from "../../components/field";
import { ListFooter } from "../../components/list-footer";
import { Page } from "../../components/page";
import { describeError } from "../../lib/api";
import { usePagedList } from "../../lib/paged";
import { account } from "../../lib/session";
import { listPeople, toggleFollow } from "./profile-api";
import type { FollowUser } from "../../lib/types";
import { t } from "../../lib/i18n";

function PersonItem({ person, onChange }: { person: FollowUser; onChange: (p: FollowUser) => void }) {
  const [error, setError] = useState<string | null>(null);
  const me = account.value;
  async function follow() {
    try {
      const r = await toggleFollow(person.username);
      onChange({ ...person, isFollowing: r.following });
    } catch (err) {
      setError(describeError(err));
    }
  }
  const name = person.displayName || person.username;
  return (
    <li class="person card">
      <Avatar user={person} />
      <div class="person-text">
        <a href={`/users/${person.username}`}>{name}</a> <span class="muted">@{person.username}</span>
        {person.bio && <p class="muted">{person.bio}</p>}
        <FormError message={error} />
      </div>
      {me?.id !== person.id && (
        <button
          type="button"
          class="small"
          aria-pressed={person.isFollowing}
          aria-label={t(person.isFollowing ? "people.list.followingName" : "people.list.followName", {
            username: person.username,
          })}
          onClick={follow}
        >
          {person.isFollowing ? t("people.profile.following") : t("people.profile.follow")}
        </button>
      )}
    </li>
  );
}

/** /users/:username/followers and /following. */
function PeopleList({ username, which }: { username: string; which: "followers" | "following" }) {
  const load = useCallback((cursor: string | null) => listPeople(username, which, cursor), [username, which]);
  const list = usePagedList<FollowUser>(`${username}:${which}`, load);
  const replace = (p: FollowUser) => list.setItems((items) => items.map((x) => (x.id === p.id ? p : x)));
  return (
    <Page title={t(which === "followers" ? "people.list.followers" : "people.list.following", { username })}>
      <p>
        <a href={`/users/${username}`}>{t("people.list.back", { username })}</a>
      </p>
      <ul class="people">
        {list.items.map((p) => (
          <PersonItem key={p.id} person={p} onChange={replace} />
        ))}
      </ul>
      <ListFooter list={list} noun={t("people.list.noun")} empty={t("people.list.empty")} />
    </Page>
  );
}

export const Followers = ({ username }: { username: string }) => <PeopleList username={username} which="followers" />;
export const Following = ({ username }: { username: string }) => <PeopleList username={username} which="following" />;
