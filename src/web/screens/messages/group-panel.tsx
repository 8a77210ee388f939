import { useEffect, useState } from "preact/hooks";
import { t } from "../../lib/i18n";
import { Field, FormError } from "../../components/field";
import { PeoplePicker, type PickedPerson } from "../../components/people-picker";
import { api, describeError } from "../../lib/api";
import { chatDraft, drafts } from "../../lib/drafts";
import { useAction } from "../../lib/use-action";
import { account } from "../../lib/session";
import { useLocation } from "preact-iso";
import type { Conversation, Member } from "../../lib/types";

/** A group's description and members with their roles; describe, add, remove, promote, invite link and leave, as my rights allow. */
export function GroupPanel({ conversation, onClose }: { conversation: Conversation; onClose: () => void }) {
  const { route } = useLocation();
  const [members, setMembers] = useState<Member[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [adding, setAdding] = useState<PickedPerson[]>([]);
  const [invite, setInvite] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const add = useAction();
  const describe = useAction();
  const [description, setDescription] = useState(conversation.description ?? "");
  // another member (or a bot) may change it while the panel is open
  useEffect(() => setDescription(conversation.description ?? ""), [conversation.description]);
  const cid = conversation.id;
  const creator = conversation.myRole === "creator";
  const can = (right: string) => creator || !!conversation.myRights[right];

  async function reload() {
    try {
      const r = await api.get<{ members: Member[] }>(`/social/groups/${cid}/members`, { limit: 100 });
      setMembers(r.members);
      setError(null);
    } catch (err) {
      setError(describeError(err));
    }
  }
  useEffect(() => void reload(), [cid, conversation.memberCount]);

  const act = (fn: () => Promise<unknown>) => async () => {
    setError(null);
    try {
      await fn();
      await reload();
    } catch (err) {
      setError(describeError(err));
    }
  };

  return (
    <aside class="group-panel" aria-labelledby="group-panel-title">
      <div class="web-app-head">
        <h2 id="group-panel-title">{t("messages.header.groupInfo")}</h2>
        <button type="button" onClick={onClose}>
          {t("messages.group.close")}
        </button>
      </div>
      <FormError message={error} />
      {can("can_change_info") ? (
        <form onSubmit={describe.run(() => api.patch(`/social/groups/${cid}`, { description: description.trim() }))}>
          <Field
            label={t("messages.group.description")}
            value={description}
            onValue={setDescription}
            maxLength={255}
            error={describe.apiError?.field("description")}
          />
          <FormError
            message={describe.error && !describe.apiError?.field("description") ? describeError(describe.error) : null}
          />
          <button type="submit" disabled={describe.busy || description.trim() === (conversation.description ?? "")}>
            {t("messages.group.saveDescription")}
          </button>
        </form>
      ) : (
        conversation.description && <p class="group-description">{conversation.description}</p>
      )}
      <h3>{t("messages.header.members", { count: conversation.memberCount })}</h3>
      <ul class="member-list">
        {members.map((m) => (
          <li key={m.user.id}>
            <span>
              {m.user.displayName} <span class="muted">@{m.user.username}</span>{" "}
              <span class="role-badge">{roleLabel(m.role, m.user.isBot)}</span>
            </span>
            {m.user.id !== account.value?.id && m.role !== "creator" && (
              <span class="member-actions">
                {can("can_promote_members") && (
                  <button
                    type="button"
                    onClick={act(() =>
                      api.post(`/social/groups/${cid}/members/${m.user.username}/promote`, {
                        role: m.role === "administrator" ? "member" : "administrator",
                      }),
                    )}
                  >
                    {m.role === "administrator"
                      ? t("messages.group.demote", { username: m.user.username })
                      : t("messages.group.promote", { username: m.user.username })}
                  </button>
                )}
                {can("can_restrict_members") && (
                  <button
                    type="button"
                    class="danger"
                    onClick={act(() => api.delete(`/social/groups/${cid}/members/${m.user.username}`))}
                  >
                    {t("messages.group.remove", { username: m.user.username })}
                  </button>
                )}
              </span>
            )}
          </li>
        ))}
      </ul>
      {can("can_invite_users") && (
        <>
          <form
            onSubmit={add.run(async () => {
              // one person per call, as the API takes them; those added leave the picker, so a
              // failure leaves only the ones still to add
              if (!adding.length) return;
              let left = adding;
              try {
                for (const person of adding) {
                  await api.post(`/social/groups/${cid}/members`, { username: person.username });
                  left = left.filter((p) => p !== person);
                }
              } finally {
                setAdding(left);
                await reload();
              }
            })}
          >
            <PeoplePicker
              label={t("messages.group.addMembers")}
              people={adding}
              onPeople={setAdding}
              excludeIds={members.map((m) => m.user.id)}
              error={add.apiError?.field("username")}
            />
            <FormError message={add.error && !add.apiError?.field("username") ? describeError(add.error) : null} />
            <button type="submit" disabled={add.busy}>
              {adding.length > 1 ? t("messages.group.addMembers") : t("messages.group.addMember")}
            </button>
          </form>
          <div class="invite">
            <button
              type="button"
              onClick={act(async () => {
                const r = await api.post<{ inviteLink: string }>(`/social/groups/${cid}/invite`);
                setInvite(r.inviteLink);
                await navigator.clipboard?.writeText(r.inviteLink).then(
                  () => setNote(t("messages.group.linkCopied")),
                  () => setNote(t("messages.group.copyBelow")),
                );
              })}
            >
              {t("messages.group.newLink")}
            </button>
            {invite && (
              <input
                readOnly
                aria-label={t("messages.group.inviteLink")}
                value={invite}
                onFocus={(e) => e.currentTarget.select()}
              />
            )}
            <p role="status" class="notice">
              {note}
            </p>
          </div>
        </>
      )}
      <button
        type="button"
        class="danger"
        onClick={act(async () => {
          await api.post(`/social/groups/${cid}/leave`);
          drafts.remove(account.value!.id, chatDraft(cid));
          route("/dashboard/messages");
        })}
      >
        {t("messages.group.leave")}
      </button>
    </aside>
  );
}

/** A member's role as the list shows it: a bot among the members is "bot"; a role the app has no word for, as the API names it. */
function roleLabel(role: string, isBot: boolean): string {
  if (role === "member") return isBot ? t("messages.group.roles.bot") : t("messages.group.roles.member");
  return role === "creator" || role === "administrator" ? t(`messages.group.roles.${role}`) : role;
}
