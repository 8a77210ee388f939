import { useState } from "preact/hooks";
import { FormError } from "../../components/field";
import { describeError } from "../../lib/api";
import { formatPercent } from "../../lib/format";
import type { Post } from "../../lib/types";
import { votePoll } from "./post-store";
import { useAction } from "../../lib/use-action";
import { t } from "../../lib/i18n";

/** A post's poll: choices until the person voted, then the results. */
export function PollView({ post, onChange }: { post: Post; onChange: (p: Post) => void }) {
  const poll = post.poll!;
  const [chosen, setChosen] = useState<string[]>([]);
  const { busy, error, run } = useAction();
  const legend = poll.question || t("feed.poll.title");
  const vote = run(async () => onChange(await votePoll(post, chosen)));

  if (poll.voted) {
    return (
      <div class="poll">
        <p class="poll-question">{legend}</p>
        <ul class="poll-results">
          {poll.options.map((o) => {
            const share = poll.totalVoters ? Math.round((o.votes / poll.totalVoters) * 100) : 0;
            return (
              <li key={o.id}>
                <span>
                  {o.text}
                  {poll.myVotes.includes(o.id) && ` ${t("feed.poll.yourVote")}`}
                </span>
                <meter min={0} max={100} value={share} aria-label={`${o.text}: ${share}%`} />
                <span class="muted">{formatPercent(share / 100)}</span>
              </li>
            );
          })}
        </ul>
        <p class="muted">{t("feed.poll.voted", { count: poll.totalVoters })}</p>
      </div>
    );
  }
  const type = poll.multiple ? "checkbox" : "radio";
  return (
    <form class="poll" onSubmit={vote}>
      <fieldset>
        <legend>{legend}</legend>
        {poll.options.map((o) => (
          <label key={o.id} class="choice">
            <input
              type={type}
              name={`poll-${poll.id}`}
              checked={chosen.includes(o.id)}
              onChange={(e) => {
                const on = e.currentTarget.checked;
                setChosen(poll.multiple ? (on ? [...chosen, o.id] : chosen.filter((c) => c !== o.id)) : [o.id]);
              }}
            />
            {o.text}
          </label>
        ))}
      </fieldset>
      <FormError message={error ? describeError(error) : null} />
      <button type="submit" disabled={busy || chosen.length === 0}>
        {t("feed.poll.vote")}
      </button>
    </form>
  );
}
