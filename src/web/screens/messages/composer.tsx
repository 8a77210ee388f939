import { useEffect, useRef, useState } from "preact/hooks";
import { t } from "../../lib/i18n";
import { ComposerInput } from "../../components/composer-input";
import { KeyboardIcon, MicIcon, PaperclipIcon, SendIcon, SquareIcon } from "../../components/icon";
import { describeError } from "../../lib/api";
import { limitsHint, kindFor, tooLarge, uploadAttachment, type OutgoingMedia } from "./attachments";
import { StickerButton, StickerPanel } from "./stickers";
import type { BotCard, ChatMessage, ReplyMarkup } from "../../lib/types";
import { ComposerLinkPreview, useLinkPreview } from "../../components/link-preview";
import { formatPercent } from "../../lib/format";

export interface ComposerProps {
  draft: string;
  setDraft: (text: string) => void;
  replyTo: ChatMessage | null;
  editing: ChatMessage | null;
  cancelMode: () => void;
  /** LINKPREVIEW false: the person removed the preview of the text's link */
  onSend: (text: string, media?: OutgoingMedia[], options?: { linkPreview?: boolean }) => void;
  onEdit: (m: ChatMessage, text: string) => Promise<void>;
  onTyping: () => void;
  bot: BotCard | null;
  /** the reply keyboard the bot shows now (null: the ordinary input) */
  keyboard: ReplyMarkup | null;
  onKeyboardUsed: () => void;
  /** opens the mini-app the bot set as its menu button */
  onOpenMenuApp: () => void;
}

/** The message input: text (with @/# suggestions), reply/edit mode, the bot's commands on "/", its reply keyboard, attachments and voice. */
export function Composer(p: ComposerProps) {
  const input = useRef<HTMLTextAreaElement>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const [editError, setEditError] = useState<string | null>(null);
  const [upload, setUpload] = useState<{ name: string; progress: number } | null>(null);
  const [attachError, setAttachError] = useState<string | null>(null);
  const [keyboardOpen, setKeyboardOpen] = useState(true);
  const [stickersOpen, setStickersOpen] = useState(false);
  const linkPreview = useLinkPreview(p.editing ? "" : p.draft);
  useEffect(() => setKeyboardOpen(true), [p.keyboard]);
  useEffect(() => {
    if (p.replyTo || p.editing) input.current?.focus();
  }, [p.replyTo, p.editing]);

  const commands =
    p.bot && p.draft.startsWith("/") && !/\s/.test(p.draft)
      ? p.bot.commands.filter((c) => `/${c.command}`.startsWith(p.draft.toLowerCase()))
      : [];

  async function submit(e?: Event) {
    e?.preventDefault();
    const text = p.draft;
    if (!text.trim()) return;
    if (p.editing) {
      try {
        setEditError(null);
        await p.onEdit(p.editing, text);
      } catch (err) {
        setEditError(describeError(err));
      }
      return;
    }
    p.onSend(text, undefined, linkPreview.request);
    linkPreview.reset();
    p.setDraft("");
  }

  async function attach(file: File, forceType?: OutgoingMedia["type"]) {
    setAttachError(null);
    const problem = tooLarge(file, kindFor(file).kind);
    if (problem) return setAttachError(problem);
    setUpload({ name: file.name, progress: 0 });
    try {
      const media = await uploadAttachment(file, (progress) => setUpload({ name: file.name, progress }), forceType);
      p.onSend(p.draft, [media]);
      p.setDraft("");
    } catch (err) {
      setAttachError(describeError(err));
    } finally {
      setUpload(null);
    }
  }

  const kb = p.keyboard;
  const placeholder =
    kb?.input_field_placeholder ??
    (p.editing ? t("messages.composer.editPlaceholder") : t("messages.composer.message"));
  return (
    <div class="composer-wrap">
      {(p.replyTo || p.editing) && (
        <div class="composer-mode">
          <p>
            {p.editing
              ? t("messages.composer.editing")
              : t("messages.composer.replyingTo", { username: p.replyTo!.sender.username })}{" "}
            <span class="muted">{(p.editing ?? p.replyTo)!.content.slice(0, 80)}</span>
          </p>
          <button type="button" onClick={p.cancelMode}>
            {p.editing ? t("messages.composer.cancelEdit") : t("messages.composer.cancelReply")}
          </button>
        </div>
      )}
      {commands.length > 0 && (
        <ul class="command-list" aria-label={t("messages.composer.commands")}>
          {commands.map((c) => (
            <li key={c.command}>
              <button
                type="button"
                onClick={() => {
                  p.onSend(`/${c.command}`);
                  p.setDraft("");
                }}
              >
                <strong>/{c.command}</strong> <span class="muted">{c.description}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {stickersOpen && (
        <StickerPanel
          onSend={(media) => {
            // a sticker travels alone: the draft stays in the input
            p.onSend("", [media]);
            setStickersOpen(false);
          }}
        />
      )}
      {upload && (
        <p class="upload-progress" role="status">
          {t("messages.composer.uploading", { name: upload.name })}{" "}
          <progress
            max={1}
            value={upload.progress}
            aria-label={t("messages.composer.uploadOf", { name: upload.name })}
          />{" "}
          {formatPercent(upload.progress)}
        </p>
      )}
      {attachError && (
        <p class="form-error" role="alert">
          {attachError}
        </p>
      )}
      {editError && (
        <p class="form-error" role="alert">
          {editError}
        </p>
      )}
      <ComposerLinkPreview state={linkPreview} />
      <form class="composer" onSubmit={(e) => void submit(e)}>
        {p.bot?.menuButton.type === "web_app" && (
          <button type="button" class="menu-app-button" onClick={p.onOpenMenuApp} disabled={!!p.editing}>
            {p.bot.menuButton.text}
          </button>
        )}
        <input
          ref={fileInput}
          type="file"
          class="visually-hidden"
          id="chat-attach"
          aria-label={t("messages.composer.chooseFile")}
          tabIndex={-1}
          aria-describedby="chat-limits"
          onChange={(e) => {
            const f = e.currentTarget.files?.[0];
            e.currentTarget.value = "";
            if (f) void attach(f);
          }}
        />
        <button
          type="button"
          class="icon-button"
          aria-label={t("messages.composer.attach")}
          title={limitsHint()}
          onClick={() => fileInput.current?.click()}
          disabled={!!upload || !!p.editing}
        >
          <PaperclipIcon />
        </button>
        <StickerButton
          open={stickersOpen}
          onToggle={() => setStickersOpen(!stickersOpen)}
          disabled={!!upload || !!p.editing}
        />
        <VoiceRecorder onRecorded={(f) => void attach(f, "voice")} disabled={!!upload || !!p.editing} />
        <label class="visually-hidden" for="chat-input">
          {t("messages.composer.message")}
        </label>
        <ComposerInput
          inputRef={input}
          id="chat-input"
          rows={1}
          value={p.draft}
          placeholder={placeholder}
          maxLength={4096}
          placement="above"
          onValue={(text) => {
            p.setDraft(text);
            p.onTyping();
          }}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey && !e.isComposing) void submit(e);
            if (e.key === "Escape" && (p.replyTo || p.editing)) p.cancelMode();
          }}
        />
        {kb?.keyboard && (
          <button
            type="button"
            class="icon-button"
            aria-label={keyboardOpen ? t("messages.composer.hideKeyboard") : t("messages.composer.showKeyboard")}
            aria-expanded={keyboardOpen}
            onClick={() => setKeyboardOpen(!keyboardOpen)}
          >
            <KeyboardIcon />
          </button>
        )}
        {p.editing ? (
          <button type="submit" class="primary" disabled={!p.draft.trim()}>
            {t("common.save")}
          </button>
        ) : (
          <button
            type="submit"
            class="primary send-button"
            aria-label={t("messages.composer.send")}
            disabled={!p.draft.trim()}
          >
            <SendIcon />
          </button>
        )}
      </form>
      <p id="chat-limits" class="visually-hidden">
        {limitsHint()}
      </p>
      {kb?.keyboard && keyboardOpen && (
        <div
          class={`reply-keyboard ${kb.resize_keyboard ? "resized" : ""}`}
          role="group"
          aria-label={t("messages.composer.keyboard")}
        >
          {kb.keyboard.map((row, i) => (
            <div class="rk-row" key={i}>
              {row.map((b, j) => {
                const text = typeof b === "string" ? b : b.text;
                return (
                  <button
                    type="button"
                    key={j}
                    onClick={() => {
                      p.onSend(text);
                      if (kb.one_time_keyboard) {
                        setKeyboardOpen(false);
                        p.onKeyboardUsed();
                      }
                    }}
                  >
                    {text}
                  </button>
                );
              })}
            </div>
          ))}
        </div>
      )}
    </div>
  );
}

/** Records a voice message with MediaRecorder (where the browser has a microphone). */
function VoiceRecorder({ onRecorded, disabled }: { onRecorded: (f: File) => void; disabled: boolean }) {
  const [rec, setRec] = useState<MediaRecorder | null>(null);
  const [error, setError] = useState<string | null>(null);
  if (typeof MediaRecorder === "undefined" || !navigator.mediaDevices) return null;
  async function start() {
    setError(null);
    try {
      const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
      const r = new MediaRecorder(stream);
      const chunks: Blob[] = [];
      r.ondataavailable = (e) => chunks.push(e.data);
      r.onstop = () => {
        stream.getTracks().forEach((t) => t.stop());
        const type = r.mimeType || "audio/webm";
        onRecorded(new File(chunks, `voice.${type.includes("ogg") ? "ogg" : "webm"}`, { type }));
        setRec(null);
      };
      r.start();
      setRec(r);
    } catch {
      setError(t("messages.composer.noMicrophone"));
    }
  }
  return (
    <>
      <button
        type="button"
        class="icon-button"
        aria-pressed={!!rec}
        aria-label={rec ? t("messages.composer.stopRecording") : t("messages.composer.record")}
        disabled={disabled}
        onClick={() => (rec ? rec.stop() : void start())}
      >
        {rec ? STOP_ICON : MIC_ICON}
      </button>
      {error && (
        <span class="field-error" role="alert">
          {error}
        </span>
      )}
    </>
  );
}

const MIC_ICON = <MicIcon />;
const STOP_ICON = <SquareIcon />;
