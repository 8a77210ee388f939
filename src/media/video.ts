import type { App } from "../app";

export interface ProbeResult {
  durationMs: number | null;
  width: number | null;
  height: number | null;
}

const TIMEOUT_MS = 30_000;

/** ffmpeg and ffprobe from PATH, or null when the instance has none. */
export function ffmpegTools(): { ffmpeg: string; ffprobe: string } | null {
  const ffmpeg = Bun.which("ffmpeg");
  const ffprobe = Bun.which("ffprobe");
  return ffmpeg && ffprobe ? { ffmpeg, ffprobe } : null;
}

async function run(cmd: string[]): Promise<{ code: number; stdout: string }> {
  const proc = Bun.spawn(cmd, {
    stdout: "pipe",
    stderr: "ignore",
    stdin: "ignore",
    timeout: TIMEOUT_MS,
    killSignal: "SIGKILL",
  });
  const stdout = await new Response(proc.stdout).text();
  const code = await proc.exited;
  return { code, stdout };
}

/** Duration and frame size of a video or audio file, by ffprobe. */
export async function probeMedia(app: App, ffprobe: string, path: string): Promise<ProbeResult | null> {
  try {
    const { code, stdout } = await run([
      ffprobe,
      "-v",
      "error",
      "-show_entries",
      "format=duration:stream=codec_type,width,height",
      "-of",
      "json",
      path,
    ]);
    if (code !== 0) return null;
    const parsed = JSON.parse(stdout) as {
      format?: { duration?: string };
      streams?: Array<{ codec_type?: string; width?: number; height?: number }>;
    };
    const seconds = Number(parsed.format?.duration);
    const video = parsed.streams?.find((s) => s.codec_type === "video");
    return {
      durationMs: Number.isFinite(seconds) ? Math.round(seconds * 1000) : null,
      width: video?.width ?? null,
      height: video?.height ?? null,
    };
  } catch (err) {
    app.log.warn("ffprobe failed", { error: String(err) });
    return null;
  }
}

/** A JPEG poster frame (first second, at most 640 px wide) written to OUT; false when ffmpeg fails. */
export async function makePoster(app: App, ffmpeg: string, path: string, out: string): Promise<boolean> {
  try {
    const { code } = await run([
      ffmpeg,
      "-v",
      "error",
      "-y",
      "-ss",
      "0",
      "-i",
      path,
      "-frames:v",
      "1",
      "-vf",
      "scale='min(640,iw)':-2",
      "-f",
      "image2",
      "-c:v",
      "mjpeg",
      out,
    ]);
    return code === 0 && (await Bun.file(out).exists());
  } catch (err) {
    app.log.warn("ffmpeg poster failed", { error: String(err) });
    return false;
  }
}
