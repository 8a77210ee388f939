import { useEffect, useRef } from "preact/hooks";
import { saveFile } from "../../lib/download";

/**
 * Recovery codes, shown once: each signs in one time in place of a two-factor code. They can
 * be downloaded as a text file; DONE hides them for good (the server never shows them again).
 */
export function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const download = () =>
    saveFile(
      "recovery-codes.txt",
      `Recovery codes for ${location.host}\nEach works once, in place of a two-factor code.\n\n${codes.join("\n")}\n`,
    );
  return (
    <div class="recovery-codes" role="group" aria-labelledby="recovery-title">
      <h3 id="recovery-title" tabIndex={-1} ref={heading}>
        Your recovery codes
      </h3>
      <p>Keep them somewhere safe. Each signs you in once if you lose your phone. They are shown only now.</p>
      <ul class="code-list" aria-label="Recovery codes">
        {codes.map((c) => (
          <li key={c}>
            <code>{c}</code>
          </li>
        ))}
      </ul>
      <div class="actions">
        <button type="button" onClick={download}>
          Download the codes
        </button>
        <button type="button" class="primary" onClick={onDone}>
          I have saved them
        </button>
      </div>
    </div>
  );
}
