import type { App } from "../../app";
import type { Db } from "../../db";
import { inTransaction } from "../../db/transaction";
import { forbidden, notFound } from "../../lib/errors";
import { randomToken } from "../../lib/ids";
import { findBotByUserId } from "../bots/service";
import { getMember } from "../chats/access";
import { openPrivateChat } from "../chats/conversations";
import { storeMessage } from "../chats/messages";
import type { UserRow } from "../users/table";
import { claimInvoice, releaseInvoice } from "./checkout";
import { createInvoice, invoiceColumns, invoiceView, type InvoiceDraft } from "./invoices";
import { askBot, chargeInvoice, paymentInProgress, recordPayment, type PayResult } from "./pay";
import type { LabeledPrice, StarInvoiceLinkRow } from "./table";

/**
 * Invoice links (the Bot API's createInvoiceLink): an invoice with no message, opened by its
 * address. Whoever opens it may pay it, as many people as like and each as often as they
 * like. A payment puts the invoice, paid, in the payer's private chat with the bot, with its
 * service message there, so the bot's successful_payment comes from that chat as the
 * compatible API's does, and a refund works as for any invoice.
 */

/** The path of a link in the web app; the slug is the only secret. */
export const invoiceLinkPath = (slug: string) => `/pay/${slug}`;

export async function createInvoiceLink(
  app: App,
  input: InvoiceDraft & { botId: number; botUserId: number },
): Promise<StarInvoiceLinkRow> {
  return app.db
    .insertInto("star_invoice_links")
    .values({
      slug: randomToken(24),
      bot_id: input.botId,
      bot_user_id: input.botUserId,
      ...invoiceColumns(input),
      created_at: app.clock.now(),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

const findLinkBySlug = (db: Db, slug: string) =>
  db.selectFrom("star_invoice_links").selectAll().where("slug", "=", slug).executeTakeFirst();

const linkDraft = (link: StarInvoiceLinkRow): InvoiceDraft => ({
  title: link.title,
  description: link.description,
  payload: link.payload,
  startParameter: link.start_parameter,
  prices: JSON.parse(link.prices) as LabeledPrice[],
});

/** A link with its bot, or NOT_FOUND (unknown slug, or the bot is gone). */
async function requireLink(app: App, slug: string) {
  const link = await findLinkBySlug(app.db, slug);
  const found = link ? await findBotByUserId(app.db, link.bot_user_id) : undefined;
  if (!link || !found) throw notFound("Invoice not found");
  return { link, ...found };
}

/** What a person sees when they open a link: the invoice (without the bot's payload) and its bot. */
export async function readInvoiceLink(app: App, slug: string) {
  const { link, user: botUser } = await requireLink(app, slug);
  const { status: _status, ...invoice } = invoiceView(linkDraft(link), "unpaid");
  return { invoice, botUser };
}

/**
 * PAYER pays the link: as Pay on an invoice message (pay.ts), pre_checkout_query to the bot and
 * its answer, then the charge, the paid invoice and its service message in PAYER's private
 * chat with the bot, and successful_payment. One payer's presses of one link do not overlap.
 */
export async function payInvoiceLink(
  app: App,
  payer: UserRow,
  slug: string,
  opts: { timeoutMs?: number } = {},
): Promise<PayResult & { conversationId: string }> {
  if (payer.is_bot) throw forbidden("Bots cannot pay invoices");
  const { link, bot, user: botUser } = await requireLink(app, slug);
  if (bot.disabled_at !== null || bot.blocked_at !== null) throw forbidden("This bot cannot take payments now");
  const conversation = await openPrivateChat(app, payer.id, botUser.id);
  const key = `invoice-link:${link.id}:${payer.id}`;
  const waitMs = opts.timeoutMs ?? app.config["payments.preCheckoutTimeoutSeconds"] * 1000;
  const claim = await claimInvoice(app, key, waitMs);
  if (claim === null) throw paymentInProgress();
  try {
    const refused = await askBot(app, bot.id, payer.id, link, waitMs);
    if (refused) return { ...refused, conversationId: conversation.cuid };

    const [payerMember, botMember] = await Promise.all([
      getMember(app.db, conversation.id, payer.id),
      getMember(app.db, conversation.id, botUser.id),
    ]);
    if (!payerMember || !botMember) throw forbidden("This bot cannot take payments now");
    const draft = linkDraft(link);
    // the invoice message, its invoice, the charge and the service message commit together
    const charged = await inTransaction(app.storage, async (scope) => {
      const message = await storeMessage(
        scope,
        app,
        { conversation, member: botMember },
        {
          content: "",
          invoice: invoiceView(draft, "unpaid"),
          replyMarkup: { inline_keyboard: [[{ text: `Pay ⭐️${link.total_amount}`, pay: true }]] },
        },
      );
      const invoice = await createInvoice(
        app,
        {
          ...draft,
          messageId: message.id,
          conversationId: conversation.id,
          botId: bot.id,
          botUserId: botUser.id,
          linkId: link.id,
        },
        scope,
      );
      const charged = await chargeInvoice(scope, app, invoice, payer.id);
      await recordPayment(scope, app, {
        membership: { conversation, member: payerMember },
        invoiceMessage: message,
        invoice,
        payment: charged.payment,
        payer,
        botUser,
      });
      return charged;
    });
    return { status: "paid", balance: charged.balance, conversationId: conversation.cuid };
  } finally {
    await releaseInvoice(app, key, claim);
  }
}
