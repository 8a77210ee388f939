import { editMessage } from "../../domain/chats/messages";
import { toUnixSeconds } from "../../lib/clock";
import type { BotContext, MethodTable } from "../context";
import { badRequest } from "../errors";
import { serializeMessage } from "../serializers";
import { NOT_MODIFIED, ownMessage } from "./edit";
import { coordinates } from "./send";

/** The bot's live location to move or stop: sent with live_period, not stopped, its period not over. */
async function liveLocation(ctx: BotContext) {
  const { view, row } = await ownMessage(ctx);
  const extra = row.extra ? (JSON.parse(row.extra) as Record<string, unknown>) : {};
  const location = extra.location as { latitude: number; longitude: number; live_period?: number } | undefined;
  const until = typeof extra.live_until === "number" ? extra.live_until : 0;
  if (!location?.live_period || toUnixSeconds(ctx.app.clock.now()) >= until)
    throw badRequest("message can't be edited");
  return { view, row, extra, location };
}

export const liveLocationMethods = {
  /** Moves a live location the bot sent; people see the new coordinates. */
  async editMessageLiveLocation(ctx) {
    const { view, row, extra, location } = await liveLocation(ctx);
    const moved = coordinates(ctx);
    if (moved.latitude === location.latitude && moved.longitude === location.longitude) throw badRequest(NOT_MODIFIED);
    const updated = await editMessage(ctx.app, {
      conversationId: view.conversation.id,
      seq: row.seq,
      editorId: ctx.me.id,
      extra: { ...extra, location: { ...location, ...moved } },
    });
    return serializeMessage(ctx.app.db, view, updated);
  },

  /** Ends a live location: it stays where it was last moved to and can no longer be moved. */
  async stopMessageLiveLocation(ctx) {
    const { view, row, extra, location } = await liveLocation(ctx);
    const { live_until: _ended, ...kept } = extra;
    const updated = await editMessage(ctx.app, {
      conversationId: view.conversation.id,
      seq: row.seq,
      editorId: ctx.me.id,
      extra: { ...kept, location: { latitude: location.latitude, longitude: location.longitude } },
    });
    return serializeMessage(ctx.app.db, view, updated);
  },
} satisfies MethodTable;
