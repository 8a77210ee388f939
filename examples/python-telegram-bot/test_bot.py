"""The bot's own test: a throwaway instance from `socialctl dev`, the bot polling it, and a
person scripted with `socialctl as`. Run with: python3 -m unittest test_bot.py"""
import unittest

from bot import build_updater
from sandbox import Sandbox


class BotTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.sandbox = Sandbox()
        cls.updater = build_updater(cls.sandbox.token, cls.sandbox.base_url)
        cls.updater.start_polling(poll_interval=0.1)

    @classmethod
    def tearDownClass(cls):
        cls.updater.stop()
        cls.sandbox.stop()

    def test_greets_answers_a_press_and_edits(self):
        sandbox = self.sandbox
        chat = sandbox.chat()
        sandbox.as_person("send", sandbox.bot, "/start")
        welcome = chat.next(lambda m: m["sender"]["isBot"])
        self.assertEqual(welcome["content"], "Welcome! Tea or coffee?")
        self.assertEqual([b["text"] for b in welcome["replyMarkup"]["inline_keyboard"][0]], ["Tea", "Coffee"])

        pressed = sandbox.as_person("press", sandbox.bot, "Tea")
        self.assertEqual(pressed["answer"]["text"], "One tea coming up")
        edited = chat.next(lambda m: m["id"] == welcome["id"] and m["editedAt"])
        self.assertEqual(edited["content"], "You chose tea.")
        chat.close()

    def test_sells_a_cup_of_tea_for_stars(self):
        sandbox = self.sandbox
        chat = sandbox.chat()
        sandbox.as_person("send", sandbox.bot, "/buy")
        invoice = chat.next(lambda m: m["invoice"] is not None)
        self.assertEqual((invoice["invoice"]["title"], invoice["invoice"]["totalAmount"]), ("Tea", 5))

        self.assertEqual(sandbox.as_person("pay", sandbox.bot)["status"], "paid")
        thanks = chat.next(lambda m: m["sender"]["isBot"] and m["invoice"] is None)
        self.assertEqual(thanks["content"], "Thanks for the 5 stars!")
        chat.close()

    def test_echoes_text_and_read_shows_it(self):
        sandbox = self.sandbox
        chat = sandbox.chat()
        sandbox.as_person("send", sandbox.bot, "hello there")
        self.assertEqual(chat.next(lambda m: m["sender"]["isBot"])["content"], "You said: hello there")
        chat.close()
        self.assertEqual([m["content"] for m in sandbox.read(2)], ["hello there", "You said: hello there"])


if __name__ == "__main__":
    unittest.main()
