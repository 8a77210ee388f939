import type { Generated, Selectable } from "kysely";

export type InvoiceStatus = "unpaid" | "paid" | "refunded";

export interface LabeledPrice {
  label: string;
  amount: number;
}

export interface StarInvoicesTable {
  id: Generated<number>;
  cuid: string;
  /** the invoice message (messages.id) */
  message_id: number;
  conversation_id: number;
  bot_id: number;
  bot_user_id: number;
  title: string;
  description: Generated<string>;
  /** the bot's own payload, given back in pre_checkout_query and successful_payment; never shown to people */
  payload: string;
  start_parameter: string | null;
  currency: Generated<string>;
  total_amount: number;
  /** JSON array of LabeledPrice */
  prices: string;
  status: Generated<InvoiceStatus>;
  created_at: number;
  paid_at: number | null;
  /** the invoice link this invoice was paid through (a createInvoiceLink payment), else null */
  link_id: Generated<number | null>;
}

/** An invoice link (createInvoiceLink): the invoice without a message, paid by whoever opens it. */
export interface StarInvoiceLinksTable {
  id: Generated<number>;
  /** the unguessable part of the link's address */
  slug: string;
  bot_id: number;
  bot_user_id: number;
  title: string;
  description: Generated<string>;
  payload: string;
  start_parameter: string | null;
  total_amount: number;
  /** JSON array of LabeledPrice */
  prices: string;
  created_at: number;
}

export interface StarPaymentsTable {
  id: Generated<number>;
  cuid: string;
  /** telegram_payment_charge_id / provider_payment_charge_id */
  charge_id: string;
  invoice_id: number;
  bot_id: number;
  bot_user_id: number;
  payer_id: number;
  conversation_id: number;
  amount: number;
  payload: string;
  status: "paid" | "refunded";
  /** the income is held (refundable, not withdrawable) until this time */
  hold_until: number;
  released_at: number | null;
  refunded_at: number | null;
  created_at: number;
}

export type StarInvoiceRow = Selectable<StarInvoicesTable>;
export type StarPaymentRow = Selectable<StarPaymentsTable>;
export type StarInvoiceLinkRow = Selectable<StarInvoiceLinksTable>;

export interface PaymentsTables {
  star_invoices: StarInvoicesTable;
  star_payments: StarPaymentsTable;
  star_invoice_links: StarInvoiceLinksTable;
}
