import { Elysia, t } from "elysia";
import type { App } from "../../app";
import { payInvoiceLink, readInvoiceLink } from "../../domain/payments/links";
import { requestContext } from "../../http/context";
import { ok } from "../../http/envelope";
import { doc } from "../docs";
import { InvoiceLink } from "../schemas";
import { serializePublicUser } from "../serializers/account";

const LinkParams = t.Object({ slug: t.String({ minLength: 1, maxLength: 64 }) });

/**
 * /api/social/invoice-links (a bot's createInvoiceLink):
 *   GET  /:slug        {invoice, bot}
 *   POST /:slug/pay    {status: "paid" | "declined" | "timeout", errorMessage?, balance?, conversationId}
 */
export function invoiceLinkRoutes(app: App) {
  return (
    new Elysia({ name: "client-invoice-links" })
      .use(requestContext(app))
      .get(
        "/:slug",
        async ({ params }) => {
          const { invoice, botUser } = await readInvoiceLink(app, params.slug);
          return ok({ invoice, bot: serializePublicUser(botUser) });
        },
        {
          auth: true,
          params: LinkParams,
          detail: doc("An invoice link a bot made: the invoice and the bot that takes the payment", {
            data: InvoiceLink,
            errors: ["NOT_FOUND"],
          }),
        },
      )
      // answers once the bot answered its pre_checkout_query or the wait ran out; a paid link
      // can be paid again (each payment is its own)
      .post("/:slug/pay", async ({ user, params }) => ok(await payInvoiceLink(app, user, params.slug)), {
        auth: true,
        params: LinkParams,
        detail: doc(
          "Pay an invoice link in stars; the paid invoice and its receipt go to the private chat with the bot (conversationId)",
          {
            data: t.Object({
              status: t.Union([t.Literal("paid"), t.Literal("declined"), t.Literal("timeout")]),
              errorMessage: t.Optional(t.String()),
              balance: t.Optional(t.Integer()),
              conversationId: t.String(),
            }),
            errors: ["NOT_FOUND", "INSUFFICIENT_BALANCE", "PAYMENT_IN_PROGRESS", "PERMISSION_DENIED"],
          },
        ),
      })
  );
}
