import { useEffect, useRef, useState } from "preact/hooks";
import { chatNotice, t } from "../../lib/i18n";
import { useLocation, useRoute } from "preact-iso";
import { Avatar } from "../../components/avatar";
import { Dialog } from "../../components/dialog";
import { Field, FormError } from "../../components/field";
import { Page } from "../../components/page";
import { PeoplePicker, type PickedPerson } from "../../components/people-picker";
import { api, describeError, uploadFile } from "../../lib/api";
import { account } from "../../lib/session";
import { formatShortDay, formatTime } from "../../lib/format";
import { useAction } from "../../lib/use-action";
import { ChatView } from "./chat-view";
import {
  chats,
  chatsError,
  chatsLoaded,
  chatsNextCursor,
  installChatListLive,
  loadChats,
  openChatId,
} from "./chat-store";
import type { ChatListItem, Conversation, GroupInvite } from "../../lib/types";

/**
 * /dashboard/messages[/:cid]: the chat list and the open chat, side by side on a wide screen,
 * one at a time on a phone. `?user=<username>` opens (or creates) that chat; with
 * `&start=<label>` the chat with the bot shows what pressing START sends (`/start <label>`)
 * and sends it on that press only: a link from another site acts on nothing by itself. The
 * address is then the chat's own, so a reload sends nothing. `?join=<code>` shows the group
 * and joins it on a press of JOIN. `?message=<id>` opens the chat at that message (a search result).
 */
export function Messages() {
  const { params } = useRoute();
  const { query, route } = useLocation();
  const cid = params.cid ?? null;
  const [opening, setOpening] = useState<string | null>(null);
  const [openError, setOpenError] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const handled = useRef<string | null>(null);

  useEffect(() => {
    installChatListLive();
    if (!chatsLoaded.value) void loadChats();
  }, []);
  useEffect(() => {
    openChatId.value = cid;
    return () => void (openChatId.value = null);
  }, [cid]);

  // ?user=: open the chat once per address, then move to the chat's own address (keeping a
  // start label for the START prompt); ?join=: show the group until JOIN is pressed
  const user = typeof query.user === "string" ? query.user : null;
  const start = typeof query.start === "string" ? query.start : null;
  const join = typeof query.join === "string" ? query.join : null;
  // ?message=<id>: a search result, shown with the history around it
  const jumpTo = typeof query.message === "string" ? query.message : null;
  useEffect(() => {
    const key = `${user}|${start}`;
    if (!user || handled.current === key) return;
    handled.current = key;
    setOpenError(null);
    setOpening(t("messages.list.opening", { username: user }));
    api.post<{ conversationId: string }>(`/social/users/${encodeURIComponent(user)}/message`, {}).then(
      (r) => {
        setOpening(null);
        // the list is not asked again: the chat's history answer puts the chat into it (rememberChat)
        const label = start ? `?start=${encodeURIComponent(start)}` : "";
        route(`/dashboard/messages/${r.conversationId}${label}`, true);
      },
      (err) => {
        setOpening(null);
        setOpenError(describeError(err));
      },
    );
  }, [user, start]);

  // the messenger fills the window below the header, whose height depends on the width
  const frame = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = frame.current;
    if (!el) return;
    const measure = () =>
      el.style.setProperty("--messenger-top", `${Math.max(0, el.getBoundingClientRect().top + scrollY)}px`);
    measure();
    addEventListener("resize", measure);
    return () => removeEventListener("resize", measure);
  }, []);

  const open = cid !== null;
  return (
    <Page title={t("messages.list.title")} wide>
      <div ref={frame} class={`messenger ${open ? "has-open-chat" : ""}`}>
        <section class="chat-list-pane" aria-labelledby="chat-list-title">
          <div class="chat-list-head">
            <h2 id="chat-list-title">{t("messages.list.chats")}</h2>
            <button type="button" onClick={() => setCreating(true)}>
              {t("messages.newGroup.title")}
            </button>
          </div>
          {opening && (
            <p class="loading" role="status">
              {opening}
            </p>
          )}
          <FormError message={openError} />
          <FormError message={chatsError.value} />
          {!chatsLoaded.value ? (
            <p class="loading" role="status">
              {t("messages.list.loading")}
            </p>
          ) : chats.value.length === 0 ? (
            <p class="empty">{t("messages.list.empty")}</p>
          ) : (
            <ul class="chat-list">
              {chats.value.map((c) => (
                <ChatRow key={c.id} chat={c} current={c.id === cid} />
              ))}
            </ul>
          )}
          {chatsNextCursor.value && (
            <button type="button" onClick={() => void loadChats(chatsNextCursor.value)}>
              {t("messages.list.more")}
            </button>
          )}
        </section>
        <div class="chat-pane">
          {cid ? (
            <ChatView
              conversationId={cid}
              onBack={() => route("/dashboard/messages")}
              startLabel={start}
              jumpTo={jumpTo}
              onStartHandled={() => route(`/dashboard/messages/${cid}`, true)}
            />
          ) : join ? (
            <JoinByLink code={join} onJoined={(id) => (void loadChats(), route(`/dashboard/messages/${id}`, true))} />
          ) : (
            <p class="empty chat-placeholder">{t("messages.list.choose")}</p>
          )}
        </div>
      </div>
      <NewGroupDialog
        open={creating}
        onClose={() => setCreating(false)}
        onCreated={(id) => (setCreating(false), void loadChats(), route(`/dashboard/messages/${id}`))}
      />
    </Page>
  );
}

/** ?join=<code>: the group an invite link opens, joined only when JOIN is pressed. */
function JoinByLink({ code, onJoined }: { code: string; onJoined: (conversationId: string) => void }) {
  const [invite, setInvite] = useState<GroupInvite | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const { busy, error, run } = useAction();
  useEffect(() => {
    setInvite(null);
    setLoadError(null);
    api
      .get<GroupInvite>(`/social/groups/join/${encodeURIComponent(code)}`)
      .then(setInvite, (err) => setLoadError(describeError(err)));
  }, [code]);
  const join = run(async () => {
    const r = await api.post<{ conversationId: string }>("/social/groups/join", { code });
    onJoined(r.conversationId);
  });
  if (loadError)
    return (
      <p class="form-error chat-placeholder" role="alert">
        {loadError}
      </p>
    );
  if (!invite)
    return (
      <p class="loading chat-placeholder" role="status">
        {t("messages.join.loading")}
      </p>
    );
  const { group } = invite;
  return (
    <section class="chat-empty link-prompt" aria-labelledby="join-title">
      {group.photoUrl ? (
        <img class="avatar" src={group.photoUrl} alt="" width={64} height={64} />
      ) : (
        <span class="avatar avatar-letter hue-5" aria-hidden="true" data-size="64">
          {group.title.charAt(0).toUpperCase()}
        </span>
      )}
      <h2 id="join-title">{group.title}</h2>
      <p class="muted">{t("messages.header.members", { count: group.memberCount })}</p>
      {group.description && <p class="bot-description">{group.description}</p>}
      <p>{invite.isMember ? t("messages.join.member") : t("messages.join.invited")}</p>
      <FormError message={error ? describeError(error) : null} />
      <button type="button" class="primary" onClick={join} disabled={busy}>
        {invite.isMember ? t("messages.join.open") : t("messages.join.join")}
      </button>
    </section>
  );
}

function preview(c: ChatListItem): string {
  const m = c.lastMessage;
  if (!m) return t("messages.list.noMessages");
  const text =
    (m.kind === "system" ? chatNotice(m.system, m.content) : m.content) ||
    (m.invoice
      ? t("messages.invoice.label", { title: m.invoice.title })
      : m.media[0]
        ? `[${mediaWord(m.media[0].type)}]`
        : m.dice
          ? m.dice.emoji
          : m.poll
            ? t("messages.list.poll", { question: m.poll.question })
            : m.location || m.venue
              ? t("messages.list.location")
              : "");
  return c.type === "group" && m.kind === "user"
    ? t("messages.list.bySender", { name: m.sender.displayName, text })
    : text;
}

/** "photo", "video"…: a media message in the chat list (a kind the app does not know by its own name). */
function mediaWord(type: string): string {
  return type === "image" || type === "video" || type === "voice" || type === "file" || type === "sticker"
    ? t(`messages.list.media.${type}`)
    : type;
}

function ChatRow({ chat, current }: { chat: ChatListItem; current: boolean }) {
  const when = chat.lastMessage?.createdAt ?? chat.lastMessageAt;
  const today = when && new Date(when).toDateString() === new Date().toDateString();
  const title = chat.title ?? t("messages.chat.untitled");
  return (
    <li>
      <a href={`/dashboard/messages/${chat.id}`} class="chat-row" aria-current={current ? "page" : undefined}>
        {chat.otherUser ? (
          <Avatar user={chat.otherUser} size={40} />
        ) : chat.photoUrl ? (
          <img class="avatar" src={chat.photoUrl} alt="" width={40} height={40} />
        ) : (
          <span class="avatar avatar-letter hue-5" aria-hidden="true">
            {title.charAt(0).toUpperCase()}
          </span>
        )}
        <span class="chat-row-text">
          <span class="chat-row-top">
            <span class="chat-title">{title}</span>
            {when && <time dateTime={when}>{today ? formatTime(when) : formatShortDay(when)}</time>}
          </span>
          <span class="chat-row-bottom">
            <span class="chat-preview">{preview(chat)}</span>
            {chat.unreadCount > 0 && (
              <span class="unread" aria-label={t("messages.list.unread", { count: chat.unreadCount })}>
                {chat.unreadCount}
              </span>
            )}
          </span>
        </span>
      </a>
    </li>
  );
}

/** Create a group: title, members (chosen with the people picker) and an optional photo. */
function NewGroupDialog({
  open,
  onClose,
  onCreated,
}: {
  open: boolean;
  onClose: () => void;
  onCreated: (id: string) => void;
}) {
  const [title, setTitle] = useState("");
  const [members, setMembers] = useState<PickedPerson[]>([]);
  const [photo, setPhoto] = useState<File | null>(null);
  const action = useAction();
  const submit = action.run(async () => {
    const r = await api.post<{ conversationId: string; conversation?: Conversation }>("/social/groups", {
      title: title.trim(),
      members: members.map((m) => m.username),
    });
    if (photo) {
      const up = await uploadFile(photo, "avatar");
      await api.patch(`/social/groups/${r.conversationId}`, { photoUrl: up.url });
    }
    setTitle("");
    setMembers([]);
    setPhoto(null);
    onCreated(r.conversationId);
  });
  return (
    <Dialog open={open} title={t("messages.newGroup.title")} onClose={onClose}>
      <form onSubmit={submit}>
        <Field
          label={t("messages.newGroup.groupTitle")}
          value={title}
          onValue={setTitle}
          required
          maxLength={128}
          error={action.apiError?.field("title")}
        />
        <PeoplePicker
          label={t("messages.newGroup.members")}
          hint={t("messages.newGroup.membersHint")}
          people={members}
          onPeople={setMembers}
          excludeIds={[account.value!.id]}
          error={action.apiError?.field("members")}
        />
        <div class="field">
          <label for="group-photo">{t("messages.newGroup.photo")}</label>
          <input
            id="group-photo"
            type="file"
            accept="image/*"
            onChange={(e) => setPhoto(e.currentTarget.files?.[0] ?? null)}
          />
        </div>
        <FormError
          message={
            action.error && !action.apiError?.field("title") && !action.apiError?.field("members")
              ? describeError(action.error)
              : null
          }
        />
        <div class="dialog-actions">
          <button type="button" onClick={onClose}>
            {t("common.cancel")}
          </button>
          <button type="submit" class="primary" disabled={action.busy || !title.trim()}>
            {t("messages.newGroup.create")}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
