import { useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { Dialog } from "../../components/dialog";
import { Field, FormError, Notice } from "../../components/field";
import { api, describeError } from "../../lib/api";
import { saveFile } from "../../lib/download";
import { account, recheckSession } from "../../lib/session";
import { useAction } from "../../lib/use-action";
import { fieldMessage, Section } from "./section";

/** Everything the instance keeps about me, as one JSON file. */
export function ExportData() {
  const [done, setDone] = useState(false);
  const { busy, error, run } = useAction();
  const download = run(async () => {
    setDone(false);
    const { export: data } = await api.get<{ export: unknown }>("/account/export");
    const day = new Date().toISOString().slice(0, 10);
    saveFile(
      `${account.value?.username ?? "account"}-export-${day}.json`,
      JSON.stringify(data, null, 2),
      "application/json",
    );
    setDone(true);
  });
  return (
    <Section
      title="Your data"
      intro="Your profile, settings, follows, blocks, notifications, stories, sessions and more, as a JSON file."
    >
      <FormError message={error ? describeError(error) : null} />
      <Notice message={done ? "The file is downloaded." : null} />
      <div class="actions">
        <button type="button" onClick={download} disabled={busy}>
          {busy ? "Preparing…" : "Download my data"}
        </button>
      </div>
    </Section>
  );
}

/** Deleting the account for good: the password, then a confirmation dialog. */
export function DeleteAccount() {
  const [open, setOpen] = useState(false);
  const [password, setPassword] = useState("");
  const { route } = useLocation();
  const { busy, error, apiError, run, setError } = useAction();
  const confirm = run(async () => {
    await api.delete("/account", { password });
    // the server ended the session with the account; asking it makes the app show sign-in
    await recheckSession();
    route("/?deleted=1", true);
  });
  const passwordError = apiError?.field("password");
  const close = () => {
    setOpen(false);
    setPassword("");
    setError(null);
  };
  return (
    <Section
      title="Delete my account"
      intro="Your profile, posts, comments, likes, bookmarks and stories are removed and your username is freed. Bots you made stop working. This cannot be undone."
    >
      <div class="actions">
        <button type="button" class="danger" onClick={() => setOpen(true)}>
          Delete my account…
        </button>
      </div>
      <Dialog open={open} title="Delete your account?" onClose={close}>
        <form class="form" onSubmit={confirm}>
          <p>Everything you posted goes with it, and nobody can bring it back.</p>
          <p>
            Your bots stop working too: they are turned off and their tokens are refused from then on, so programs using
            them get “Unauthorized”.
          </p>
          <p>Enter your password to confirm.</p>
          <Field
            label="Password"
            type="password"
            autoComplete="current-password"
            required
            autoFocus
            value={password}
            onValue={setPassword}
            error={fieldMessage("Password", passwordError)}
          />
          <FormError message={error && !passwordError ? describeError(error) : null} />
          <div class="actions">
            <button type="submit" class="primary danger-fill" disabled={busy}>
              Delete forever
            </button>
            <button type="button" onClick={close}>
              Keep my account
            </button>
          </div>
        </form>
      </Dialog>
    </Section>
  );
}
