/**
 * Live status badges for extension and trunk cards, from GET /api/pbx/status. A badge never claims
 * what AMI did not say: while the manager interface is not connected it reads "Unknown", and its
 * tooltip gives the reason.
 */
import type { VariantProps } from "class-variance-authority";
import type { ReactNode } from "react";
import { badgeVariants } from "@/components/ui/badge";
import { Tooltip, TooltipContent, TooltipTrigger } from "@/components/ui/tooltip";
import { cn } from "@/lib/utils";
import type { ExtensionLive, LiveContact, TrunkLive, TrunkRegistration } from "../../../shared/live";
import { DEVICE_STATE_LABELS } from "../../../shared/live-states";
import { type LiveLookup, useLiveExtension, useLiveTrunk } from "./api";

type Variant = NonNullable<VariantProps<typeof badgeVariants>["variant"]>;

/**
 * A badge that shows its details on hover and on keyboard focus (a button, so it can take focus).
 * `state` is for tests and styling: "registered", "unregistered", "unknown", "loading", …
 */
function LiveBadge({
  label,
  variant,
  details,
  state,
  testId,
}: {
  label: string;
  variant: Variant;
  details: ReactNode;
  state: string;
  testId: string;
}) {
  return (
    <Tooltip>
      <TooltipTrigger asChild>
        <button
          type="button"
          className={cn(badgeVariants({ variant }), "cursor-default")}
          data-testid={testId}
          data-state-live={state}
        >
          {label}
        </button>
      </TooltipTrigger>
      <TooltipContent className="max-w-80 text-left">{details}</TooltipContent>
    </Tooltip>
  );
}

function Checking({ testId }: { testId: string }) {
  return (
    <span className={badgeVariants({ variant: "outline" })} data-testid={testId} data-state-live="loading">
      <span className="text-muted-foreground">Checking…</span>
    </span>
  );
}

function unknownDetails(reason: string) {
  return (
    <>
      <span className="font-medium">Live status unknown. </span>
      {reason}
    </>
  );
}

/** `203.0.113.5:5060 · Yealink T46U · 12 ms` */
function contactLine(c: LiveContact): string {
  const parts = [c.address ?? c.uri, c.userAgent ?? "Unknown user agent"];
  if (c.roundtripMs !== null) parts.push(`${Math.round(c.roundtripMs)} ms`);
  else if (c.status === "unreachable") parts.push("unreachable");
  return parts.join(" · ");
}

function extensionDetails(extension: string, live: ExtensionLive | null) {
  if (!live) return `Asterisk has no endpoint ${extension}: deploy the extension to the PBX.`;
  if (!live.registered) return `No phone is registered to extension ${extension}.`;
  return (
    <ul className="grid gap-1">
      {live.contacts.map((c) => (
        <li key={c.uri} className="break-all">
          {contactLine(c)}
        </li>
      ))}
    </ul>
  );
}

/** Device states worth a second badge beside "Registered" (idle is the normal case, said by the tooltip). */
const STATE_VARIANT: Partial<Record<ExtensionLive["state"], Variant>> = {
  ringing: "warning",
  "in-use": "default",
  busy: "default",
  "on-hold": "secondary",
};

/** The badge while the live status loads ("Checking") or is unknown (with the reason). */
function NotKnown({ lookup, testId }: { lookup: Exclude<LiveLookup<unknown>, { status: "known" }>; testId: string }) {
  if (lookup.status === "unknown") {
    return (
      <LiveBadge
        testId={testId}
        state="unknown"
        label="Unknown"
        variant="outline"
        details={unknownDetails(lookup.reason)}
      />
    );
  }
  return <Checking testId={testId} />;
}

/** Registered / Not registered (+ the device state while ringing or in a call), or Unknown with the reason. */
export function ExtensionLiveBadge({ extension }: { extension: string }) {
  return <ExtensionLiveView extension={extension} lookup={useLiveExtension(extension)} />;
}

/** The badge from a lookup already made (a table reads the status once for all its rows: `useLiveExtensions`). */
export function ExtensionLiveView({ extension, lookup }: { extension: string; lookup: LiveLookup<ExtensionLive> }) {
  const testId = "extension-live";
  if (lookup.status !== "known") return <NotKnown lookup={lookup} testId={testId} />;
  const live = lookup.live;
  const registered = live?.registered === true;
  const stateVariant = live && registered ? STATE_VARIANT[live.state] : undefined;
  return (
    <span className="flex shrink-0 items-center gap-1">
      {live && stateVariant && (
        <span className={badgeVariants({ variant: stateVariant })} data-testid="extension-device-state">
          {DEVICE_STATE_LABELS[live.state]}
        </span>
      )}
      <LiveBadge
        testId={testId}
        state={registered ? "registered" : "unregistered"}
        label={registered ? "Registered" : "Not registered"}
        variant={registered ? "success" : "secondary"}
        details={
          <>
            {live && registered && (
              <span className="mb-1 block font-medium">
                {DEVICE_STATE_LABELS[live.state]} · {live.contacts.length}{" "}
                {live.contacts.length === 1 ? "phone" : "phones"}
              </span>
            )}
            {extensionDetails(extension, live)}
          </>
        }
      />
    </span>
  );
}

const REGISTRATION: Record<TrunkRegistration, { label: string; variant: Variant; details: string }> = {
  registered: { label: "Registered", variant: "success", details: "The carrier accepted the registration." },
  unregistered: { label: "Unregistered", variant: "warning", details: "The trunk is not registered right now." },
  rejected: { label: "Rejected", variant: "destructive", details: "The carrier refused the registration." },
  failed: { label: "Failed", variant: "destructive", details: "The registration failed; Asterisk retries." },
  "not-registering": {
    label: "No registration",
    variant: "secondary",
    details: "This trunk does not register (IP-authenticated).",
  },
  unknown: { label: "Unknown", variant: "outline", details: "Asterisk did not report the registration state." },
};

function reachabilityText(reachable: boolean | null): string {
  if (reachable === null) return "Reachability is not checked (qualify is off).";
  return reachable ? "The carrier answers qualify (OPTIONS)." : "The carrier does not answer qualify (OPTIONS).";
}

/** The registration state and reachability, or Unknown with the reason. */
export function TrunkLiveBadge({ name }: { name: string }) {
  const lookup: LiveLookup<TrunkLive> = useLiveTrunk(name);
  const testId = "trunk-live";
  if (lookup.status !== "known") return <NotKnown lookup={lookup} testId={testId} />;
  const live = lookup.live;
  if (!live) {
    return (
      <LiveBadge
        testId={testId}
        state="missing"
        label="Not on the PBX"
        variant="secondary"
        details={`Asterisk has no endpoint named ${name}: deploy the trunk to the PBX.`}
      />
    );
  }
  const reg = REGISTRATION[live.registration];
  return (
    <>
      <LiveBadge
        testId={testId}
        state={live.registration}
        label={reg.label}
        variant={reg.variant}
        details={`${reg.details} ${reachabilityText(live.reachable)}`}
      />
      {live.reachable !== null && (
        <span
          className={badgeVariants({ variant: live.reachable ? "outline" : "destructive" })}
          data-testid="trunk-reachable"
        >
          {live.reachable ? "Reachable" : "Unreachable"}
        </span>
      )}
    </>
  );
}
