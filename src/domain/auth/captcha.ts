import { randomInt } from "../../lib/crypto";
import type { Sharp } from "../../media/sharp";
import type { Db } from "../../db";
import { newCuid } from "../../lib/ids";
import type { ServerText } from "../users/language";

/** A captcha answer works once, for this long. */
export const CAPTCHA_TTL_MS = 10 * 60_000;
const LENGTH = 5;
const WIDTH = 200;
const HEIGHT = 70;
const PIXEL_RATIO = 2;

type Stroke = Array<[number, number]>;
/**
 * Glyphs as strokes on a 4×6 grid, drawn as paths: the image needs no fonts, so it renders
 * the same from source and from the compiled binary. Look-alikes (0/O, 1/I, 2/Z, 5/S, 8/B, and M and W,
 * which read as N and V once tilted) are left out.
 */
const GLYPHS: Record<string, Stroke[]> = {
  A: [
    [
      [0, 6],
      [2, 0],
      [4, 6],
    ],
    [
      [1, 3.5],
      [3, 3.5],
    ],
  ],
  C: [
    [
      [4, 1],
      [3, 0],
      [1, 0],
      [0, 1],
      [0, 5],
      [1, 6],
      [3, 6],
      [4, 5],
    ],
  ],
  E: [
    [
      [4, 0],
      [0, 0],
      [0, 6],
      [4, 6],
    ],
    [
      [0, 3],
      [3, 3],
    ],
  ],
  F: [
    [
      [4, 0],
      [0, 0],
      [0, 6],
    ],
    [
      [0, 3],
      [3, 3],
    ],
  ],
  H: [
    [
      [0, 0],
      [0, 6],
    ],
    [
      [4, 0],
      [4, 6],
    ],
    [
      [0, 3],
      [4, 3],
    ],
  ],
  K: [
    [
      [0, 0],
      [0, 6],
    ],
    [
      [4, 0],
      [0, 3.5],
    ],
    [
      [1.5, 2.5],
      [4, 6],
    ],
  ],
  L: [
    [
      [0, 0],
      [0, 6],
      [4, 6],
    ],
  ],
  N: [
    [
      [0, 6],
      [0, 0],
      [4, 6],
      [4, 0],
    ],
  ],
  P: [
    [
      [0, 6],
      [0, 0],
      [3, 0],
      [4, 1],
      [4, 2],
      [3, 3],
      [0, 3],
    ],
  ],
  R: [
    [
      [0, 6],
      [0, 0],
      [3, 0],
      [4, 1],
      [4, 2],
      [3, 3],
      [0, 3],
    ],
    [
      [2, 3],
      [4, 6],
    ],
  ],
  T: [
    [
      [0, 0],
      [4, 0],
    ],
    [
      [2, 0],
      [2, 6],
    ],
  ],
  U: [
    [
      [0, 0],
      [0, 5],
      [1, 6],
      [3, 6],
      [4, 5],
      [4, 0],
    ],
  ],
  V: [
    [
      [0, 0],
      [2, 6],
      [4, 0],
    ],
  ],
  X: [
    [
      [0, 0],
      [4, 6],
    ],
    [
      [4, 0],
      [0, 6],
    ],
  ],
  Y: [
    [
      [0, 0],
      [2, 3],
      [4, 0],
    ],
    [
      [2, 3],
      [2, 6],
    ],
  ],
  "3": [
    [
      [0, 0],
      [4, 0],
      [2, 2.5],
      [3.5, 3.2],
      [4, 4.5],
      [3, 6],
      [1, 6],
      [0, 5],
    ],
  ],
  "4": [
    [
      [3, 6],
      [3, 0],
      [0, 4],
      [4, 4],
    ],
  ],
  "7": [
    [
      [0, 0],
      [4, 0],
      [1.5, 6],
    ],
  ],
};
const ALPHABET = Object.keys(GLYPHS);

const rnd = (min: number, max: number) => min + (randomInt(0, 1_000_000) / 1_000_000) * (max - min);
const f = (n: number) => n.toFixed(1);

/** SVG of TEXT: jittered, rotated stroke glyphs over noise curves and dots. */
export function captchaSvg(text: string): string {
  const parts: string[] = [
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="rgb(${randomInt(225, 256)},${randomInt(225, 256)},${randomInt(225, 256)})"/>`,
  ];
  for (let i = 0; i < 40; i++) {
    parts.push(
      `<circle cx="${f(rnd(0, WIDTH))}" cy="${f(rnd(0, HEIGHT))}" r="${f(rnd(0.5, 2))}" fill="rgb(${randomInt(80, 200)},${randomInt(80, 200)},${randomInt(80, 200)})"/>`,
    );
  }
  const scale = 6;
  [...text].forEach((ch, i) => {
    const cx = 22 + i * 38 + rnd(-4, 4);
    const cy = HEIGHT / 2 + rnd(-6, 6);
    const angle = rnd(-16, 16);
    const s = scale * rnd(0.85, 1.15);
    const color = `rgb(${randomInt(10, 110)},${randomInt(10, 110)},${randomInt(10, 110)})`;
    const paths = GLYPHS[ch]!.map((stroke) => {
      const pts = stroke.map(([x, y]) => `${f((x - 2 + rnd(-0.25, 0.25)) * s)},${f((y - 3 + rnd(-0.25, 0.25)) * s)}`);
      return `<polyline points="${pts.join(" ")}" fill="none" stroke="${color}" stroke-width="${f(rnd(2.5, 4))}" stroke-linecap="round" stroke-linejoin="round"/>`;
    });
    parts.push(
      `<g transform="translate(${f(cx)},${f(cy)}) rotate(${f(angle)}) skewX(${f(rnd(-12, 12))})">${paths.join("")}</g>`,
    );
  });
  for (let i = 0; i < 5; i++) {
    const y = () => f(rnd(5, HEIGHT - 5));
    parts.push(
      `<path d="M0,${y()} C${f(rnd(30, 90))},${y()} ${f(rnd(110, 170))},${y()} ${WIDTH},${y()}" fill="none" stroke="rgb(${randomInt(120, 190)},${randomInt(120, 190)},${randomInt(120, 190)})" stroke-width="${f(rnd(1, 1.6))}"/>`,
    );
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}">${parts.join("")}</svg>`;
}

/** N (1 to 999) in the words of T's language: 342 → "three hundred and forty-two", "триста сорок два". */
export function numberInWords(n: number, t: ServerText): string {
  const words = (key: "ones" | "teens" | "tens" | "hundreds") => t(`captcha.${key}`).split(",");
  const [ones, teens, tens, hundreds] = [words("ones"), words("teens"), words("tens"), words("hundreds")];
  const hundred = Math.floor(n / 100);
  const rest = n % 100;
  const restWords =
    rest === 0
      ? ""
      : rest < 10
        ? ones[rest - 1]!
        : rest < 20
          ? teens[rest - 10]!
          : rest % 10
            ? t("captcha.tensAndOnes", { tens: tens[Math.floor(rest / 10) - 2], ones: ones[(rest % 10) - 1] })
            : tens[Math.floor(rest / 10) - 2]!;
  if (!hundred) return restWords;
  return restWords
    ? t("captcha.hundredsAndRest", { hundreds: hundreds[hundred - 1], rest: restWords })
    : hundreds[hundred - 1]!;
}

/**
 * The non-visual alternative to the picture (WCAG 1.1.1): a question in plain text that a screen
 * reader reads out and whose answer is typed into the same field. It stops the same generic
 * sign-up scripts the picture stops; neither stops a script written for this software, which
 * is what `invite` mode is for.
 */
function textQuestion(t: ServerText): { question: string; answers: string[] } {
  const n = randomInt(101, 1000);
  return { question: t("captcha.question", { number: numberInWords(n, t) }), answers: [String(n)] };
}

/**
 * Makes a captcha: stores its answers and returns its id, a PNG data URL of the code and the
 * text question, in T's language, that may be answered instead. sharp is passed in (loaded lazily by
 * media/sharp.ts) so no native code loads until a captcha is asked for.
 */
export async function createCaptcha(
  db: Db,
  now: number,
  sharp: Sharp,
  t: ServerText,
): Promise<{ captchaId: string; image: string; question: string }> {
  const answer = Array.from({ length: LENGTH }, () => ALPHABET[randomInt(0, ALPHABET.length)]!).join("");
  // drawn at twice its CSS size, so phones' dense screens show sharp strokes at 200×70
  const png = await sharp(Buffer.from(captchaSvg(answer)), { density: 72 * PIXEL_RATIO })
    .png()
    .toBuffer();
  const { question, answers } = textQuestion(t);
  const captchaId = newCuid();
  await db.deleteFrom("auth_captchas").where("expires_at", "<=", now).execute();
  await db
    .insertInto("auth_captchas")
    .values({
      cuid: captchaId,
      answer: answer.toLowerCase(),
      question_answers: answers.map((a) => a.toLowerCase()).join("\n"),
      expires_at: now + CAPTCHA_TTL_MS,
      created_at: now,
    })
    .execute();
  return { captchaId, image: `data:image/png;base64,${png.toString("base64")}`, question };
}

/**
 * Checks an answer: the code in the picture or the answer to the question, case-insensitive,
 * surrounding spaces ignored. The captcha is used up by any attempt, right or wrong, so one
 * captcha allows one guess.
 */
export async function solveCaptcha(db: Db, now: number, captchaId: string, answer: string): Promise<boolean> {
  const row = await db
    .deleteFrom("auth_captchas")
    .where("cuid", "=", captchaId)
    .returning(["answer", "question_answers", "expires_at"])
    .executeTakeFirst();
  if (!row || row.expires_at <= now) return false;
  const given = answer.trim().toLowerCase();
  return given === row.answer || (row.question_answers?.split("\n") ?? []).includes(given);
}

/** Test-only: the picture's answer of a live captcha, read from the database (no endpoint exposes it). */
export async function captchaAnswerForTests(db: Db, captchaId: string): Promise<string | undefined> {
  const row = await db.selectFrom("auth_captchas").select("answer").where("cuid", "=", captchaId).executeTakeFirst();
  return row?.answer;
}
