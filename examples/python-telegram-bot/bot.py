"""A small python-telegram-bot bot (version 13, as Debian ships it): a greeting with two
buttons, an answer and an edit when one is pressed, an invoice in stars, and an echo.

Point it at any Bot API server with BASE_URL (`socialctl dev` prints the token and the
python-telegram-bot base_url, which ends in /bot):

    BOT_TOKEN=... BASE_URL=http://127.0.0.1:8081/bot python3 bot.py
"""
import os

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, LabeledPrice
from telegram.ext import CallbackQueryHandler, CommandHandler, Filters, MessageHandler, PreCheckoutQueryHandler, Updater


def start(update, context):
    buttons = [[InlineKeyboardButton("Tea", callback_data="tea"), InlineKeyboardButton("Coffee", callback_data="coffee")]]
    update.message.reply_text("Welcome! Tea or coffee?", reply_markup=InlineKeyboardMarkup(buttons))


def chosen(update, context):
    query = update.callback_query
    query.answer("One %s coming up" % query.data)
    query.edit_message_text("You chose %s." % query.data)


def buy(update, context):
    # stars (XTR) need no payment provider: the provider token is empty
    context.bot.send_invoice(update.effective_chat.id, "Tea", "A cup of tea", "tea-1", "", "XTR", [LabeledPrice("Tea", 5)])


def precheckout(update, context):
    update.pre_checkout_query.answer(ok=True)


def paid(update, context):
    update.message.reply_text("Thanks for the %d stars!" % update.message.successful_payment.total_amount)


def echo(update, context):
    update.message.reply_text("You said: %s" % update.message.text)


def build_updater(token, base_url=None):
    """The bot's Updater; BASE_URL None means Telegram's own servers."""
    updater = Updater(token, base_url=base_url) if base_url else Updater(token)
    dispatcher = updater.dispatcher
    dispatcher.add_handler(CommandHandler("start", start))
    dispatcher.add_handler(CallbackQueryHandler(chosen))
    dispatcher.add_handler(CommandHandler("buy", buy))
    dispatcher.add_handler(PreCheckoutQueryHandler(precheckout))
    dispatcher.add_handler(MessageHandler(Filters.successful_payment, paid))
    dispatcher.add_handler(MessageHandler(Filters.text & ~Filters.command, echo))
    return updater


if __name__ == "__main__":
    updater = build_updater(os.environ["BOT_TOKEN"], os.environ.get("BASE_URL"))
    updater.start_polling()
    updater.idle()
