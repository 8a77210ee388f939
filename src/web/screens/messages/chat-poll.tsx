import { useContext, useState } from "preact/hooks";
import { FormError } from "../../components/field";
import { describeError } from "../../lib/api";
import { formatNumber } from "../../lib/format";
import { useAction } from "../../lib/use-action";
import { ChatActionsContext } from "./actions";
import type { ChatMessage, ChatPoll } from "../../lib/types";

const percent = new Intl.NumberFormat(undefined, { style: "percent" });

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
  const label = `Poll: ${poll.question}`;
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
                  {mine.includes(o.index) && " (your vote)"}
                  {poll.correctOptionId === o.index && " (correct)"}
                </span>
                <meter
                  min={0}
                  max={1}
                  value={share}
                  aria-label={`${o.text}: ${formatNumber(o.voterCount)} of ${formatNumber(poll.totalVoterCount)}`}
                />
                <span class="muted">{percent.format(share)}</span>
              </li>
            );
          })}
        </ul>
        {poll.explanation && <p class="muted">{poll.explanation}</p>}
        <p class="muted">
          {formatNumber(poll.totalVoterCount)} voted{poll.isClosed && " · Poll closed"}
        </p>
        <FormError message={error ? describeError(error) : null} />
        {!poll.isClosed && mine.length > 0 && poll.allowsRevoting && (
          <button type="button" disabled={busy} onClick={takeBack}>
            Take back my vote
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
        {poll.type === "quiz" ? "Quiz" : poll.isAnonymous ? "Anonymous poll" : "Public poll: the bot sees your vote"}
      </p>
      <FormError message={error ? describeError(error) : null} />
      <button type="submit" disabled={busy || chosen.length === 0}>
        Vote
      </button>
    </form>
  );
}
