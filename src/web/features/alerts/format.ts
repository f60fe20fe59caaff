/** How rules and alerts read on the Alerts screen. */
import { ALERT_KIND_TEXT, type AlertKind, type AlertRule, durationText } from "../../../shared/alerts";

export { durationText };

export const kindLabel = (kind: string) => ALERT_KIND_TEXT[kind as AlertKind]?.label ?? kind;

const forSeconds = (seconds: number) => (seconds > 0 ? `for ${durationText(seconds * 1000)}` : "at once");

/** A rule's parameters in words: "carrier, for 2 min", "over 90 %, at once". */
export function paramsText(rule: AlertRule, testCallName?: (id: number) => string | undefined): string {
  switch (rule.kind) {
    case "trunk-unregistered":
      return `${rule.params.trunk ?? "every trunk"}, ${forSeconds(rule.params.seconds)}`;
    case "extension-offline":
      return `${rule.params.extension ?? "every extension"}, ${forSeconds(rule.params.seconds)}`;
    case "ami-unreachable":
    case "cdr-unreachable":
      return forSeconds(rule.params.seconds);
    case "disk-usage":
    case "memory-usage":
      return `at ${rule.params.percent} % or more, ${forSeconds(rule.params.seconds)}`;
    case "backup-failed":
      return "console and off-site backups";
    case "certificate-expiring":
      return `${rule.params.days} days ahead`;
    case "failed-sign-ins":
    case "sip-attack":
      return `${rule.params.count} or more in ${rule.params.minutes} min`;
    case "test-call-failed":
      return rule.params.testCallId === null
        ? "every test call"
        : (testCallName?.(rule.params.testCallId) ?? `test call ${rule.params.testCallId}`);
  }
}
