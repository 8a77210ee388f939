/** The words the app uses for reports (/api/social/reports, /api/admin/reports). */
import type { ReportAction, ReportReason } from "./types";
import { t } from "./i18n";

/** Each reason's name, read in the shown language (each entry is a getter). */
export const REASON_LABEL: Readonly<Record<ReportReason, string>> = {
  get spam() {
    return t("common.report.reasons.spam");
  },
  get abuse() {
    return t("common.report.reasons.abuse");
  },
  get illegal() {
    return t("common.report.reasons.illegal");
  },
  get other() {
    return t("common.report.reasons.other");
  },
};

/** What the reporter is told an administrator did (in the shown language, as REASON_LABEL). */
export const OUTCOME: Readonly<Record<ReportAction, string>> = {
  get dismiss() {
    return t("common.report.outcome.dismiss");
  },
  get "remove-content"() {
    return t("common.report.outcome.removeContent");
  },
  get "block-posting"() {
    return t("common.report.outcome.blockPosting");
  },
  get "disable-account"() {
    return t("common.report.outcome.disableAccount");
  },
  get "disable-bot"() {
    return t("common.report.outcome.disableBot");
  },
};
