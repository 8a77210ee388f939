import { createServer, type Server, type Socket } from "node:net";

/** A message as the fake server received it. */
export interface ReceivedMail {
  from: string;
  to: string[];
  /** "PLAIN user pass" / "LOGIN user pass" / null */
  auth: string | null;
  data: string;
  /** the decoded text/plain body (our mails are base64) */
  text: string;
}

/**
 * A tiny SMTP server for tests: greets, answers EHLO with the given AUTH mechanisms,
 * accepts AUTH PLAIN/LOGIN against one user, MAIL/RCPT/DATA/QUIT, and keeps messages.
 */
export async function startFakeSmtp(opts: { user?: string; password?: string; mechanisms?: string[]; rejectRcpt?: boolean } = {}) {
  const received: ReceivedMail[] = [];
  const waiters: Array<() => void> = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
    socket.setEncoding("utf8");
    const say = (line: string) => socket.write(line + "\r\n");
    let buffer = "";
    let mode: "cmd" | "data" | "login-user" | "login-pass" = "cmd";
    let current: { from: string; to: string[]; auth: string | null; data: string } = { from: "", to: [], auth: null, data: "" };
    let loginUser = "";
    const authOk = (mech: string, user: string, pass: string) => {
      if (user === opts.user && pass === opts.password) {
        current.auth = `${mech} ${user} ${pass}`;
        say("235 2.7.0 Authentication successful");
      } else say("535 5.7.8 Authentication failed");
    };
    say("220 fake.test ESMTP");
    socket.on("data", (chunk: string) => {
      buffer += chunk;
      while (true) {
        if (mode === "data") {
          const end = buffer.indexOf("\r\n.\r\n");
          if (end < 0) return;
          current.data = buffer.slice(0, end).replace(/^\.\./gm, ".");
          buffer = buffer.slice(end + 5);
          const body = current.data.split("\r\n\r\n").slice(1).join("\r\n\r\n");
          received.push({ ...current, text: Buffer.from(body.replace(/\r\n/g, ""), "base64").toString("utf8") });
          current = { from: "", to: [], auth: current.auth, data: "" };
          mode = "cmd";
          say("250 2.0.0 queued");
          for (const w of waiters.splice(0)) w();
          continue;
        }
        const nl = buffer.indexOf("\r\n");
        if (nl < 0) return;
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 2);
        if (mode === "login-user") {
          loginUser = Buffer.from(line, "base64").toString();
          mode = "login-pass";
          say("334 UGFzc3dvcmQ6");
          continue;
        }
        if (mode === "login-pass") {
          mode = "cmd";
          authOk("LOGIN", loginUser, Buffer.from(line, "base64").toString());
          continue;
        }
        const [verb, ...rest] = line.split(" ");
        switch (verb!.toUpperCase()) {
          case "EHLO": {
            const mechs = opts.mechanisms ?? ["PLAIN", "LOGIN"];
            say("250-fake.test");
            if (mechs.length) say(`250-AUTH ${mechs.join(" ")}`);
            say("250 8BITMIME");
            break;
          }
          case "AUTH":
            if (rest[0] === "PLAIN") {
              const [, user, pass] = Buffer.from(rest[1] ?? "", "base64").toString().split("\0");
              authOk("PLAIN", user ?? "", pass ?? "");
            } else if (rest[0] === "LOGIN") {
              mode = "login-user";
              say("334 VXNlcm5hbWU6");
            } else say("504 unsupported");
            break;
          case "MAIL":
            if (opts.user && !current.auth) say("530 5.7.0 Authentication required");
            else {
              current.from = line.match(/<(.*)>/)?.[1] ?? "";
              say("250 OK");
            }
            break;
          case "RCPT":
            if (opts.rejectRcpt) say("550 5.1.1 no such user");
            else {
              current.to.push(line.match(/<(.*)>/)?.[1] ?? "");
              say("250 OK");
            }
            break;
          case "DATA":
            mode = "data";
            say("354 End data with <CR><LF>.<CR><LF>");
            break;
          case "QUIT":
            say("221 bye");
            socket.end();
            break;
          default:
            say("502 unknown command");
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    received,
    /** Resolves once at least COUNT messages arrived (fails after a few seconds). */
    async waitFor(count: number, timeoutMs = 3000): Promise<ReceivedMail[]> {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} mails, got ${received.length}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
      return received;
    },
    async stop() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
