import { createDecipheriv, createECDH, createPublicKey, hkdfSync, randomBytes, verify } from "node:crypto";
import { waitFor } from "./wait";

/*
 * A push service on a loopback port, as browsers' push services behave for the sending server
 * (RFC 8030): it takes POSTs to each subscription's endpoint, and the test reads what arrived
 * through a browser's eyes: the VAPID token checked against the instance's public key (RFC
 * 8292) and the body decrypted with the keys the test's "browser" made (RFC 8291).
 */

/** A push as the service received it. */
export interface ReceivedPush {
  endpoint: string;
  headers: Headers;
  body: Uint8Array;
  at: number;
}

/** How the service answers one endpoint: a status (201 accepted, 410 gone...) after DELAYMS. */
export interface EndpointBehaviour {
  status?: number;
  delayMs?: number;
}

export interface TestPushService {
  readonly url: string;
  readonly received: ReceivedPush[];
  /** Pushes to ENDPOINT so far. */
  to(endpoint: string): ReceivedPush[];
  /** Sets how ENDPOINT answers from now on. */
  answer(endpoint: string, behaviour: EndpointBehaviour): void;
  /** A new subscription as a browser makes one: its endpoint here and its keys (and how to read what it gets). */
  subscribe(name?: string): BrowserSubscription;
  /** Waits until ENDPOINT got COUNT pushes and returns them. */
  waitFor(endpoint: string, count?: number, ms?: number): Promise<ReceivedPush[]>;
  stop(): void;
}

export interface BrowserSubscription {
  endpoint: string;
  keys: { p256dh: string; auth: string };
  /** Decrypts an aes128gcm body (RFC 8291) with this browser's private key and auth secret. */
  decrypt(body: Uint8Array): string;
}

let counter = 0;

export function startTestPushService(): TestPushService {
  const received: ReceivedPush[] = [];
  const behaviours = new Map<string, EndpointBehaviour>();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 30,
    async fetch(req) {
      if (req.method !== "POST") return new Response("method not allowed", { status: 405 });
      const endpoint = req.url;
      const body = new Uint8Array(await req.arrayBuffer());
      const behaviour = behaviours.get(endpoint) ?? {};
      if (behaviour.delayMs) await Bun.sleep(behaviour.delayMs);
      received.push({ endpoint, headers: req.headers, body, at: Date.now() });
      return new Response(null, { status: behaviour.status ?? 201 });
    },
  });
  const url = `http://127.0.0.1:${server.port}`;
  const to = (endpoint: string) => received.filter((r) => r.endpoint === endpoint);
  return {
    url,
    received,
    to,
    answer: (endpoint, behaviour) => void behaviours.set(endpoint, behaviour),
    subscribe: (name = `sub-${++counter}-${randomBytes(4).toString("hex")}`) =>
      browserSubscription(`${url}/push/${name}`),
    waitFor: (endpoint, count = 1, ms = 10_000) =>
      waitFor(() => to(endpoint).length >= count && to(endpoint), ms, `${count} push(es) to ${endpoint}`),
    stop: () => void server.stop(true),
  };
}

/** Keys as a browser makes them for pushManager.subscribe: a P-256 key pair and a 16-byte auth secret. */
export function browserSubscription(endpoint: string): BrowserSubscription {
  const ecdh = createECDH("prime256v1");
  ecdh.generateKeys();
  const auth = randomBytes(16);
  const uaPublic = ecdh.getPublicKey();
  return {
    endpoint,
    keys: { p256dh: uaPublic.toString("base64url"), auth: auth.toString("base64url") },
    decrypt(body) {
      // header: salt (16) | record size (4) | key id length (1) | key id (the sender's ephemeral public key)
      const buf = Buffer.from(body);
      const salt = buf.subarray(0, 16);
      const idLength = buf[20]!;
      const asPublic = buf.subarray(21, 21 + idLength);
      const record = buf.subarray(21 + idLength);
      const shared = ecdh.computeSecret(asPublic);
      const keyInfo = Buffer.concat([Buffer.from("WebPush: info\0"), uaPublic, asPublic]);
      const ikm = Buffer.from(hkdfSync("sha256", shared, auth, keyInfo, 32));
      const cek = Buffer.from(hkdfSync("sha256", ikm, salt, Buffer.from("Content-Encoding: aes128gcm\0"), 16));
      const nonce = Buffer.from(hkdfSync("sha256", ikm, salt, Buffer.from("Content-Encoding: nonce\0"), 12));
      const decipher = createDecipheriv("aes-128-gcm", cek, nonce);
      decipher.setAuthTag(record.subarray(record.length - 16));
      const padded = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
      // the last record ends with the delimiter 0x02, then any zero padding
      let end = padded.length - 1;
      while (end >= 0 && padded[end] === 0) end--;
      if (padded[end] !== 2) throw new Error("not the last record of an aes128gcm body");
      return padded.subarray(0, end).toString("utf8");
    },
  };
}

/** The claims of a VAPID token (RFC 8292). */
export interface VapidClaims {
  aud: string;
  exp: number;
  sub: string;
}

/**
 * Checks a push's `Authorization: vapid t=<JWT>, k=<public key>` as a push service does: the
 * key is PUBLICKEY, the JWT is ES256-signed by it, its audience is the endpoint's origin, it
 * expires within a day and names a mailto: or https: contact. Returns the claims or throws.
 */
export function verifyVapid(headers: Headers, endpoint: string, publicKey: string, now = Date.now()): VapidClaims {
  const header = headers.get("authorization") ?? "";
  const match = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(header);
  if (!match) throw new Error(`not a VAPID authorization: ${header}`);
  const [, token, key] = match;
  if (key !== publicKey) throw new Error("the VAPID key is not the instance's");
  const [head, claims, signature] = token!.split(".");
  const point = Buffer.from(publicKey, "base64url");
  const jwk = {
    kty: "EC",
    crv: "P-256",
    x: point.subarray(1, 33).toString("base64url"),
    y: point.subarray(33).toString("base64url"),
  };
  const signed = verify(
    "sha256",
    Buffer.from(`${head}.${claims}`),
    { key: createPublicKey({ key: jwk, format: "jwk" }), dsaEncoding: "ieee-p1363" },
    Buffer.from(signature!, "base64url"),
  );
  if (!signed) throw new Error("the VAPID signature does not verify");
  const alg = JSON.parse(Buffer.from(head!, "base64url").toString()) as { alg: string };
  if (alg.alg !== "ES256") throw new Error(`the VAPID token is signed with ${alg.alg}, not ES256`);
  const c = JSON.parse(Buffer.from(claims!, "base64url").toString()) as VapidClaims;
  if (c.aud !== new URL(endpoint).origin) throw new Error(`aud ${c.aud} is not the endpoint's origin`);
  const seconds = now / 1000;
  if (!(c.exp > seconds && c.exp <= seconds + 24 * 3600)) throw new Error(`exp ${c.exp} is not within a day`);
  if (!/^(mailto:|https:)/.test(c.sub)) throw new Error(`sub ${c.sub} is neither mailto: nor https:`);
  return c;
}
