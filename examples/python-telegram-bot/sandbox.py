"""A test's handle on `socialctl dev`: a throwaway instance with a person and a bot, and the
person scripted with `socialctl as`. SOCIALCTL is how to run socialctl (default: the
`socialctl` executable on PATH; e.g. "npx socialctl")."""
import json
import os
import queue
import shlex
import signal
import subprocess
import threading
import time

SOCIALCTL = shlex.split(os.environ.get("SOCIALCTL", "socialctl"))


class SocialctlError(Exception):
    """socialctl exited non-zero; the message is its one-line reason."""


class Sandbox:
    def __init__(self):
        self._dev = subprocess.Popen(
            SOCIALCTL + ["--json", "dev", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        first = self._dev.stdout.readline()
        if not first:
            raise SocialctlError("socialctl dev did not start: " + self._dev.stderr.read())
        started = json.loads(first)
        self.token = started["bot"]["token"]
        self.base_url = started["bot"]["libraries"]["python-telegram-bot"]
        self.person = started["person"]["username"]
        self.bot = "@" + started["bot"]["username"]
        self.data_dir = started["dataDir"]
        self._global = ["--data-dir", self.data_dir, "--json"]
        self._followers = []

    def _run(self, *args):
        done = subprocess.run(SOCIALCTL + self._global + ["as", self.person] + list(args), capture_output=True, text=True)
        if done.returncode != 0:
            raise SocialctlError(done.stderr.strip())
        return done.stdout.strip()

    def as_person(self, *args):
        """`socialctl as PERSON ARGS... --json`: its JSON answer."""
        return json.loads(self._run(*args))

    def read(self, limit=20):
        """The newest LIMIT messages of the person's chat with the bot, oldest first."""
        return [json.loads(line) for line in self._run("read", self.bot, "--limit", str(limit)).splitlines()]

    def chat(self):
        """Follows the person's chat with the bot (read --follow); see Chat.next."""
        follower = Chat(SOCIALCTL + self._global + ["as", self.person, "read", self.bot, "--follow", "--limit", "0"])
        self._followers.append(follower)
        return follower

    def stop(self):
        for follower in self._followers:
            follower.close()
        # Ctrl-C: the sandbox stops and removes its data
        self._dev.send_signal(signal.SIGINT)
        self._dev.wait(timeout=30)
        self._dev.stdout.close()
        self._dev.stderr.close()


class Chat:
    def __init__(self, command):
        self._process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # it says so on stderr once it follows: nothing sent after that is missed
        if not self._process.stderr.readline():
            raise SocialctlError("read --follow ended before following: " + self._process.stdout.read())
        self._messages = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        for line in self._process.stdout:
            self._messages.put(json.loads(line))

    def next(self, matches, timeout=10):
        """The next message (new or edited) for which MATCHES is true; earlier ones are skipped."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("no matching message within %d s" % timeout)
            try:
                message = self._messages.get(timeout=left)
            except queue.Empty:
                continue
            # socialctl ended with its reason (--json prints it as {"error": ...})
            if "error" in message and "id" not in message:
                raise SocialctlError("read --follow: " + message["error"]["message"])
            if matches(message):
                return message

    def close(self):
        if self._process.poll() is None:
            self._process.send_signal(signal.SIGINT)
            self._process.wait(timeout=10)
        self._process.stdout.close()
        self._process.stderr.close()
