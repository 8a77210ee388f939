import { useId, useState } from "preact/hooks";
import { t } from "../../lib/i18n";
import { ReportDialog } from "../../components/report";
import { getProfile, toggleBlock } from "../people/profile-api";

/**
 * Reporting a bot from its chat: the report dialog with "block it too" (on by default), so a
 * bot that writes unasked can be stopped and reported in one step.
 */
export function BotReportDialog({ bot, onClose }: { bot: string; onClose: () => void }) {
  const [block, setBlock] = useState(true);
  const [blocked, setBlocked] = useState(false);
  const id = useId();
  return (
    <ReportDialog
      open
      target={{ type: "bot", id: bot, label: t("messages.botReport.target", { bot }) }}
      onClose={onClose}
      confirmLabel={block ? t("messages.botReport.blockAndReport") : t("messages.botReport.send")}
      sentText={blocked ? t("messages.botReport.blocked", { bot }) : null}
      onSent={async () => {
        if (!block) return;
        // the block endpoint toggles: a bot already blocked stays blocked
        if (!(await getProfile(bot)).isBlocked) await toggleBlock(bot);
        setBlocked(true);
      }}
    >
      <label class="choice" for={id}>
        <input id={id} type="checkbox" checked={block} onChange={(e) => setBlock(e.currentTarget.checked)} />
        {t("messages.botReport.alsoBlock", { bot })}
      </label>
    </ReportDialog>
  );
}
