import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { generateKeyPairSync } from "node:crypto";
import { join } from "node:path";
import { VAPID_FILE, ensureDataDir } from "./layout";

/**
 * The instance's VAPID key pair (RFC 8292): push services accept a push only when it is signed
 * with the private key whose public key the browser subscribed with. Both are base64url: the
 * public key as the uncompressed P-256 point (65 bytes), the private key as the scalar (32 bytes),
 * the forms browsers (applicationServerKey) and web-push take.
 */
export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

const PUBLIC_KEY_RE = /^[A-Za-z0-9_-]{87}$/;
const PRIVATE_KEY_RE = /^[A-Za-z0-9_-]{43}$/;

/** Whether VALUE is a key pair of the right shape (as stored or carried by `config export`). */
export function isVapidKeys(value: unknown): value is VapidKeys {
  const v = value as Partial<VapidKeys> | null;
  return (
    typeof v === "object" &&
    v !== null &&
    typeof v.publicKey === "string" &&
    PUBLIC_KEY_RE.test(v.publicKey) &&
    typeof v.privateKey === "string" &&
    PRIVATE_KEY_RE.test(v.privateKey)
  );
}

/** A new P-256 key pair in the VAPID forms. */
export function generateVapidKeys(): VapidKeys {
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const pub = publicKey.export({ format: "jwk" });
  const priv = privateKey.export({ format: "jwk" });
  const point = Buffer.concat([Buffer.from([4]), Buffer.from(pub.x!, "base64url"), Buffer.from(pub.y!, "base64url")]);
  return { publicKey: point.toString("base64url"), privateKey: priv.d! };
}

/** DATADIR's VAPID keys, or null when it has none yet. */
export function readVapidKeys(dataDir: string): VapidKeys | null {
  const path = join(dataDir, VAPID_FILE);
  if (!existsSync(path)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    parsed = null;
  }
  if (!isVapidKeys(parsed)) throw new Error(`${path} does not hold VAPID keys: restore it from 'config export'`);
  return { publicKey: parsed.publicKey, privateKey: parsed.privateKey };
}

/** Stores KEYS as DATADIR's VAPID keys, owner-only, replacing the file whole. */
export function writeVapidKeys(dataDir: string, keys: VapidKeys): void {
  ensureDataDir(dataDir);
  const path = join(dataDir, VAPID_FILE);
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, JSON.stringify(keys) + "\n", { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}

/**
 * DATADIR's VAPID keys, made on first need (`init`, or the first start of an instance made
 * before Web Push existed). Kept beside the instance secret and carried with it by `config
 * export`: every node must sign with the keys the browsers subscribed with.
 */
export function ensureVapidKeys(dataDir: string): VapidKeys {
  const found = readVapidKeys(dataDir);
  if (found) return found;
  const keys = generateVapidKeys();
  writeVapidKeys(dataDir, keys);
  return keys;
}
