import { useContext, useState } from "preact/hooks";
import { t } from "../../lib/i18n";
import { FormError } from "../../components/field";
import { describeError } from "../../lib/api";
import { formatNumber, formatPercent } from "../../lib/format";
import { useAction } from "../../lib/use-action";
import { ChatActionsContext } from "./actions";
import type { ChatMessage, ChatPoll } from "../../lib/types";

/**
 * A bot's poll in a chat: choices (radio, or checkboxes when several answers are allowed)
 * until I voted or it closed, then the counts, my vote, a quiz's correct answer, and "Take
 * back my vote" while the poll allows it.
 */
export function ChatPollView({ message, poll }: { message: ChatMessage; poll: ChatPoll }) {
  const actions = useContext(ChatActionsContext)!;
  const [chosen, setChosen] = useState<number[]>([]);
  const { busy, error, run } = useAction();
  const mine = poll.myVotes ?? [];
  const label = t("messages.list.poll", { question: poll.question });
  const vote = run(async () => {
    await actions.vote(message, chosen);
    setChosen([]);
  });
  const takeBack = run(() => actions.vote(message, []));

  if (mine.length > 0 || poll.isClosed) {
    return (
      <section class="poll msg-poll" aria-label={label}>
        <p class="poll-question">{poll.question}</p>
        <ul class="poll-results">
          {poll.options.map((o) => {
            const share = poll.totalVoterCount ? o.voterCount / poll.totalVoterCount : 0;
            return (
              <li key={o.index}>
                <span>
                  {o.text}
                  {mine.includes(o.index) && ` ${t("messages.poll.yourVote")}`}
                  {poll.correctOptionId === o.index && ` ${t("messages.poll.correct")}`}
                </span>
                <meter
                  min={0}
                  max={1}
                  value={share}
                  aria-label={t("messages.poll.share", {
                    option: o.text,
                    votes: o.voterCount,
                    total: poll.totalVoterCount,
                  })}
                />
                <span class="muted">{formatPercent(share)}</span>
              </li>
            );
          })}
        </ul>
        {poll.explanation && <p class="muted">{poll.explanation}</p>}
        <p class="muted">
          {t("messages.poll.voted", { count: poll.totalVoterCount })}
          {poll.isClosed && ` · ${t("messages.poll.closed")}`}
        </p>
        <FormError message={error ? describeError(error) : null} />
        {!poll.isClosed && mine.length > 0 && poll.allowsRevoting && (
          <button type="button" disabled={busy} onClick={takeBack}>
            {t("messages.poll.takeBack")}
          </button>
        )}
      </section>
    );
  }
  const multiple = poll.allowsMultipleAnswers;
  return (
    <form class="poll msg-poll" aria-label={label} onSubmit={vote}>
      <fieldset>
        <legend>{poll.question}</legend>
        {poll.options.map((o) => (
          <label key={o.index} class="choice">
            <input
              type={multiple ? "checkbox" : "radio"}
              name={`poll-${message.id}`}
              checked={chosen.includes(o.index)}
              onChange={(e) => {
                const on = e.currentTarget.checked;
                setChosen(multiple ? (on ? [...chosen, o.index] : chosen.filter((c) => c !== o.index)) : [o.index]);
              }}
            />
            {o.text}
          </label>
        ))}
      </fieldset>
      <p class="muted">
        {poll.type === "quiz"
          ? t("messages.poll.quiz")
          : poll.isAnonymous
            ? t("messages.poll.anonymous")
            : t("messages.poll.public")}
      </p>
      <FormError message={error ? describeError(error) : null} />
      <button type="submit" disabled={busy || chosen.length === 0}>
        {t("messages.poll.vote")}
      </button>
    </form>
  );
}
