import { Bot, InlineKeyboard } from "grammy";

/**
 * A small grammY bot: a greeting with two buttons, an answer and an edit when one is pressed,
 * an invoice in stars, and an echo. Point it at any Bot API server with API_ROOT
 * (`socialctl dev` prints both the token and the root).
 */
export function createBot(token: string, apiRoot?: string): Bot {
  const bot = new Bot(token, apiRoot ? { client: { apiRoot } } : {});

  bot.command("start", (ctx) =>
    ctx.reply("Welcome! Tea or coffee?", {
      reply_markup: new InlineKeyboard().text("Tea", "tea").text("Coffee", "coffee"),
    }),
  );

  bot.callbackQuery(["tea", "coffee"], async (ctx) => {
    await ctx.answerCallbackQuery({ text: `One ${ctx.callbackQuery.data} coming up` });
    await ctx.editMessageText(`You chose ${ctx.callbackQuery.data}.`);
  });

  bot.command("buy", (ctx) =>
    // stars (XTR) need no payment provider
    ctx.replyWithInvoice("Tea", "A cup of tea", "tea-1", "XTR", [{ label: "Tea", amount: 5 }]),
  );
  bot.on("pre_checkout_query", (ctx) => ctx.answerPreCheckoutQuery(true));
  bot.on("message:successful_payment", (ctx) =>
    ctx.reply(`Thanks for the ${ctx.message.successful_payment.total_amount} stars!`),
  );

  bot.on("message:text", (ctx) => ctx.reply(`You said: ${ctx.message.text}`));
  return bot;
}

if (import.meta.main) {
  const token = process.env.BOT_TOKEN;
  if (!token) throw new Error("set BOT_TOKEN (and API_ROOT for a server other than Telegram's)");
  const bot = createBot(token, process.env.API_ROOT);
  process.once("SIGINT", () => bot.stop());
  process.once("SIGTERM", () => bot.stop());
  await bot.start({ onStart: (me) => console.log(`@${me.username} is running`) });
}
