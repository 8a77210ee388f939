import { useCallback, useEffect, useMemo, useRef, useState } from "preact/hooks";
import { t } from "../../lib/i18n";
import { ReportDialog } from "../../components/report";
import { BotReportDialog } from "./bot-report";
import { api, describeError } from "../../lib/api";
import { chatDraft, drafts } from "../../lib/drafts";
import { account } from "../../lib/session";
import { ChatActionsContext, type ChatActions } from "./actions";
import type { OutgoingMedia } from "./attachments";
import { chats } from "./chat-store";
import { Composer } from "./composer";
import { GroupPanel } from "./group-panel";
import type { PendingMessage } from "./message";
import { PaymentSheet, useStarBalance } from "./payment-sheet";
import type { BotCard, ChatMessage } from "../../lib/types";
import { botLinkTarget, type BotLinkTarget } from "./bot-links";
import { openWebApp, WebAppPanel, type OpenWebApp, type WebAppFraming } from "./web-app-panel";
import { useChatInView } from "../../lib/chat-in-view";
import { ChatSearch } from "./chat-search";
import {
  appendSent,
  applyVote,
  botKeyboard,
  forcedReply,
  keyboardOwner,
  pinnedMessage,
  removeMessage,
  replaceMessage,
  setReactions,
} from "./history-window";
import { useChatHistory } from "./use-chat-history";
import { ChatHistory, EmptyChat } from "./chat-history";
import { ChatHeader, PinnedBar } from "./chat-header";
import { BotAlertDialog, BotLinkDialogs, ForwardDialog, ImageViewerDialog, type ViewedImage } from "./chat-dialogs";
import { StartPrompt } from "./start-prompt";

type WebAppLaunch = { url: string; framing: WebAppFraming };
const newClientId = () =>
  crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random().toString(36).slice(2)}`;

/** The open chat: header, pinned bar, history (older pages on scrolling up), input, and the bot's extras. */
export function ChatView({
  conversationId,
  onBack,
  startLabel = null,
  onStartHandled,
  jumpTo = null,
}: {
  conversationId: string;
  onBack: () => void;
  /** a message to open the chat at (a search result's id), shown highlighted with the history around it */
  jumpTo?: string | null;
  /** a start link's label: the chat with its bot shows what START sends, and sends it on that press only */
  startLabel?: string | null;
  onStartHandled?: () => void;
}) {
  const me = account.value!;
  useChatInView(conversationId);
  const [pending, setPending] = useState<PendingMessage[]>([]);
  const [draft, setDraft] = useState("");
  const [replyTo, setReplyTo] = useState<ChatMessage | null>(null);
  const [editing, setEditing] = useState<ChatMessage | null>(null);
  // the unsent text is kept on the device per chat; a message being edited is not a draft
  const editingNow = useRef(false);
  editingNow.current = !!editing;
  const savedDraft = () => drafts.read(me.id, chatDraft(conversationId))?.text ?? "";
  const typeDraft = (text: string) => {
    setDraft(text);
    if (!editingNow.current) drafts.write(me.id, chatDraft(conversationId), { text });
  };
  const [bot, setBot] = useState<BotCard | null>(null);
  const [toast, setToast] = useState<string | null>(null);
  const [alertText, setAlertText] = useState<string | null>(null);
  const [link, setLink] = useState<BotLinkTarget | null>(null);
  const [viewer, setViewer] = useState<ViewedImage | null>(null);
  const [forwarding, setForwarding] = useState<ChatMessage | null>(null);
  const [reporting, setReporting] = useState<ChatMessage | null>(null);
  const [reportingBot, setReportingBot] = useState(false);
  const [paying, setPaying] = useState<ChatMessage | null>(null);
  const [webApp, setWebApp] = useState<OpenWebApp | null>(null);
  const [usedKeyboard, setUsedKeyboard] = useState<string | null>(null);
  const [showInfo, setShowInfo] = useState(false);
  const [searching, setSearching] = useState(false);
  const searchToggle = useRef<HTMLButtonElement>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const lastTypingSent = useRef(0);
  const toastTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const forcedReplyFor = useRef<string | null>(null);
  useStarBalance(false);

  const chat = useChatHistory(conversationId, jumpTo, me.id, pending, {
    onArrived: (m) => {
      if (m.clientMessageId) setPending((p) => p.filter((x) => x.clientMessageId !== m.clientMessageId));
    },
    onLoaded: (conversation) => {
      if (conversation.otherUser?.isBot) {
        api.get<{ bot: BotCard }>(`/social/bots/${conversation.otherUser.username}`).then(
          (b) => setBot(b.bot),
          () => setBot(null),
        );
      } else setBot(null);
    },
    onError: setActionError,
  });
  const { history, setHistory, load } = chat;

  useEffect(() => {
    setPending([]);
    setReplyTo(null);
    setEditing(null);
    setDraft(savedDraft());
    setWebApp(null);
    setShowInfo(false);
    setSearching(false);
  }, [conversationId]);

  const sendNow = useCallback(
    async (p: PendingMessage, media?: OutgoingMedia[]) => {
      setPending((list) => [
        ...list.filter((x) => x.clientMessageId !== p.clientMessageId),
        { ...p, state: "sending", error: undefined },
      ]);
      chat.stickToBottom.current = true;
      try {
        const body: Record<string, unknown> = { content: p.content, clientMessageId: p.clientMessageId };
        if (p.replyTo) body.replyToId = p.replyTo.id;
        if (media) body.media = media;
        if (p.linkPreview === false) body.linkPreview = false;
        const { message } = await api.post<{ message: ChatMessage }>(`/social/messages/${conversationId}`, body);
        setPending((list) => list.filter((x) => x.clientMessageId !== p.clientMessageId));
        setHistory((h) => h && appendSent(h, message));
      } catch (err) {
        setPending((list) =>
          list.map((x) =>
            x.clientMessageId === p.clientMessageId ? { ...x, state: "failed", error: describeError(err) } : x,
          ),
        );
      }
    },
    [conversationId],
  );

  const media = useRef(new Map<string, OutgoingMedia[]>());
  // what a send reads when it happens, kept out of its identity: the chat's actions (a context
  // every message row reads) stay the same object while pages come and go or a reply is chosen,
  // so a page put in renders its new rows only
  const sendState = useRef({ replyTo, behind: false });
  sendState.current = { replyTo, behind: !!history?.newestCursor };
  const send = useCallback(
    (text: string, items?: OutgoingMedia[], options?: { linkPreview?: boolean }) => {
      const p: PendingMessage = {
        clientMessageId: newClientId(),
        content: text,
        replyTo: sendState.current.replyTo,
        ...(options?.linkPreview === false ? { linkPreview: false } : {}),
        state: "sending",
        createdAt: new Date().toISOString(),
      };
      if (items) media.current.set(p.clientMessageId, items);
      setReplyTo(null);
      // reading far back: what I send shows with the newest messages, loaded again
      if (sendState.current.behind) void load();
      void sendNow(p, items);
    },
    [sendNow, load],
  );

  const run = (fn: () => Promise<unknown>) => {
    setActionError(null);
    fn().catch((err) => setActionError(describeError(err)));
  };

  const showToast = (text: string) => {
    setToast(text);
    clearTimeout(toastTimer.current);
    toastTimer.current = setTimeout(() => setToast(null), 4000);
  };

  const conversation = history?.conversation ?? null;
  const actions: ChatActions | null = useMemo(
    () =>
      conversation && {
        conversation,
        myId: me.id,
        reply: (m) => (setEditing(null), setReplyTo(m)),
        edit: (m) => (setReplyTo(null), setEditing(m), setDraft(m.content)),
        remove: (m, forEveryone) =>
          run(async () => {
            await api.delete(
              `/social/messages/${conversationId}/${m.id}`,
              undefined,
              forEveryone ? { forEveryone: true } : undefined,
            );
            setHistory((h) => h && removeMessage(h, m.id));
          }),
        react: (m, emoji) =>
          run(async () => {
            const { reactions } = await api.post<{ reactions: ChatMessage["reactions"] }>(
              `/social/messages/${conversationId}/${m.id}/reactions`,
              { emoji },
            );
            setHistory((h) => h && setReactions(h, m.id, reactions));
          }),
        pin: (m, pinned) =>
          run(async () => {
            const { message } = pinned
              ? await api.post<{ message: ChatMessage }>(`/social/messages/${conversationId}/${m.id}/pin`)
              : await api.delete<{ message: ChatMessage }>(`/social/messages/${conversationId}/${m.id}/pin`);
            setHistory((h) => h && replaceMessage(h, message));
          }),
        forward: setForwarding,
        report: setReporting,
        setDraft: (text) => {
          typeDraft(text);
          requestAnimationFrame(() => document.getElementById("chat-input")?.focus());
        },
        send: (text) => send(text),
        openWebApp: (m, url) =>
          run(async () => {
            const r = await api.post<WebAppLaunch>(`/social/messages/${conversationId}/${m.id}/web-app`, { url });
            setWebApp(openWebApp(r, m.sender.displayName));
          }),
        pay: setPaying,
        vote: async (m, options) => {
          const path = `/social/messages/${conversationId}/${m.id}/poll/vote`;
          const { message } = options.length
            ? await api.post<{ message: ChatMessage }>(path, { options })
            : await api.delete<{ message: ChatMessage }>(path);
          setHistory((h) => h && applyVote(h, message));
        },
        toast: showToast,
        alert: setAlertText,
        // every link a bot gives waits for a press, this site's pages too; sign-in pages never open
        confirmLink: (url) => setLink(botLinkTarget(url, location.origin)),
        viewImage: (url, alt, protectedContent, shownUrl) => setViewer({ url, alt, protectedContent, shownUrl }),
      },
    [conversation, send, conversationId],
  );

  function typed() {
    const now = Date.now();
    if (now - lastTypingSent.current < 4000) return;
    lastTypingSent.current = now;
    api.post(`/social/messages/${conversationId}/typing`).catch(() => undefined);
  }

  async function saveEdit(m: ChatMessage, text: string) {
    const { message } = await api.patch<{ message: ChatMessage }>(`/social/messages/${conversationId}/${m.id}`, {
      content: text,
    });
    setHistory((h) => h && replaceMessage(h, message));
    setEditing(null);
    setDraft(savedDraft());
  }

  const messages = history?.messages ?? [];
  const keyboard = useMemo(() => botKeyboard(messages, me.id, usedKeyboard), [messages, usedKeyboard]);
  const keyboardFrom = useMemo(() => keyboardOwner(messages, me.id), [messages]);
  const pinned = useMemo(() => pinnedMessage(messages), [messages]);

  // force_reply: the bot's newest message asks for an answer to itself
  const forced = forcedReply(messages, me.id);
  useEffect(() => {
    if (forced && forcedReplyFor.current !== forced.id) {
      forcedReplyFor.current = forced.id;
      setEditing(null);
      setReplyTo(forced);
    }
  }, [messages[messages.length - 1]?.id]);

  if (chat.loadError)
    return (
      <section class="chat-view" aria-label={t("messages.chat.label")}>
        <p class="form-error" role="alert">
          {chat.loadError}
        </p>
        <button type="button" onClick={() => void load()}>
          {t("messages.chat.tryAgain")}
        </button>
      </section>
    );
  if (!history || !actions)
    return (
      <section class="chat-view" aria-label={t("messages.chat.label")}>
        <p class="loading" role="status">
          {t("messages.chat.loading")}
        </p>
      </section>
    );

  const other = history.conversation.otherUser;
  const starting = !!startLabel && !!other?.isBot;
  return (
    <ChatActionsContext.Provider value={actions}>
      <div class={`chat-area ${webApp ? "with-web-app" : ""}`}>
        <section class="chat-view" aria-labelledby="chat-title">
          <ChatHeader
            conversation={history.conversation}
            typingUser={chat.typingUser}
            searching={searching}
            searchToggle={searchToggle}
            showInfo={showInfo}
            onBack={onBack}
            onToggleSearch={() => setSearching(!searching)}
            onReportBot={() => setReportingBot(true)}
            onToggleInfo={() => setShowInfo(!showInfo)}
          />
          {searching && (
            <ChatSearch
              conversationId={conversationId}
              onShow={chat.showMessage}
              onClose={() => {
                setSearching(false);
                chat.setFound(null);
                searchToggle.current?.focus();
              }}
            />
          )}
          {pinned && <PinnedBar pinned={pinned} />}
          {actionError && (
            <p class="form-error" role="alert">
              {actionError}
            </p>
          )}
          {starting && (
            <StartPrompt
              bot={other!.username}
              label={startLabel!}
              onStarted={() => (onStartHandled?.(), void load())}
            />
          )}
          <ChatHistory
            history={history}
            paging={chat.paging}
            pending={pending}
            otherRead={chat.otherRead}
            found={chat.found}
            empty={starting ? null : <EmptyChat bot={bot} onStart={() => send("/start")} />}
            refs={chat.refs}
            onRetry={(p) => void sendNow(p, media.current.get(p.clientMessageId))}
            onDiscard={(p) => setPending((list) => list.filter((x) => x.clientMessageId !== p.clientMessageId))}
            onShowNewest={() => void load()}
          />
          <Composer
            draft={draft}
            setDraft={typeDraft}
            replyTo={replyTo}
            editing={editing}
            cancelMode={() => {
              if (editing) setDraft(savedDraft());
              setReplyTo(null);
              setEditing(null);
            }}
            onSend={send}
            onEdit={saveEdit}
            onTyping={typed}
            bot={bot}
            keyboard={keyboard}
            onKeyboardUsed={() => setUsedKeyboard(keyboardFrom)}
            onOpenMenuApp={() =>
              run(async () => {
                const r = await api.post<WebAppLaunch>(`/social/messages/${conversationId}/web-app`);
                setWebApp(openWebApp(r, bot?.displayName ?? t("messages.chat.miniApp")));
              })
            }
          />
          <div class="toast" role="status" aria-live="polite">
            {toast}
          </div>
        </section>
        {showInfo && history.conversation.type === "group" && (
          <GroupPanel conversation={history.conversation} onClose={() => setShowInfo(false)} />
        )}
        <WebAppPanel app={webApp} onClose={() => setWebApp(null)} />
      </div>
      <BotAlertDialog text={alertText} onClose={() => setAlertText(null)} />
      <BotLinkDialogs link={link} onClose={() => setLink(null)} />
      <ImageViewerDialog viewer={viewer} onClose={() => setViewer(null)} />
      {reporting && (
        <ReportDialog
          open
          target={{
            type: "message",
            id: reporting.id,
            label: t("messages.chat.reportLabel", { username: reporting.sender.username }),
          }}
          onClose={() => setReporting(null)}
        />
      )}
      {reportingBot && other?.isBot && <BotReportDialog bot={other.username} onClose={() => setReportingBot(false)} />}
      <ForwardDialog
        open={forwarding !== null}
        chats={chats.value}
        onClose={() => setForwarding(null)}
        onChoose={(c) =>
          run(async () => {
            const m = forwarding!;
            setForwarding(null);
            await api.post(`/social/messages/${conversationId}/${m.id}/forward`, {
              toConversationId: c.id,
              clientMessageId: newClientId(),
            });
            showToast(c.title ? t("messages.chat.forwardedTo", { chat: c.title }) : t("messages.chat.forwarded"));
          })
        }
      />
      <PaymentSheet
        payable={
          paying?.invoice
            ? { invoice: paying.invoice, payPath: `/social/messages/${paying.conversationId}/${paying.id}/pay` }
            : null
        }
        onClose={() => setPaying(null)}
      />
    </ChatActionsContext.Provider>
  );
}
