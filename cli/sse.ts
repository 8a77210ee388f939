/**
 * Reads a Server-Sent Events body until the server ends it (or the fetch is aborted), calling
 * ONFRAME with each named event's name and parsed `data:` JSON; comments and pings are skipped.
 */
export async function readSse(
  body: ReadableStream<Uint8Array>,
  onFrame: (event: string, data: unknown) => void,
): Promise<void> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const lines = buffer.slice(0, end).split("\n");
      buffer = buffer.slice(end + 2);
      const event = lines.find((l) => l.startsWith("event: "))?.slice(7);
      const data = lines.find((l) => l.startsWith("data: "))?.slice(6);
      if (event && data !== undefined) onFrame(event, JSON.parse(data));
    }
  }
}
