import { useEffect } from "preact/hooks";
import { api } from "./api";

/** Repeated this often while the chat stays on screen: well inside the server's hold of the word (60 s). */
const REPEAT_MS = 30_000;

/**
 * Tells the server that CHATID is on screen in this browser while it is (the page visible),
 * and that it no longer is when the chat closes or the page is hidden: no push about a chat
 * its reader is looking at (PUT /api/push/viewing).
 */
export function useChatInView(chatId: string): void {
  useEffect(() => {
    let timer: ReturnType<typeof setInterval> | null = null;
    const tell = (id: string | null) => void api.put("/push/viewing", { chatId: id }).catch(() => {});
    const update = () => {
      if (timer) clearInterval(timer);
      timer = null;
      if (document.visibilityState !== "visible") return tell(null);
      tell(chatId);
      timer = setInterval(() => tell(chatId), REPEAT_MS);
    };
    update();
    document.addEventListener("visibilitychange", update);
    return () => {
      document.removeEventListener("visibilitychange", update);
      if (timer) clearInterval(timer);
      tell(null);
    };
  }, [chatId]);
}
