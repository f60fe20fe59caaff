/**
 * Where a call goes: the routing simulator's request and answer, and the destination list every picker
 * chooses from (ADR 0058). A path is the steps from the trunk to where the call ends, each with why.
 */
import { z } from "zod";
import type { Destination, DestinationKind } from "./destinations";
import { lazySchema } from "./lazy-schema";

/** One destination a picker offers: `{kind, target}` and how it reads ("1001 Alice", "Ring group 600 Sales"). */
export interface DestinationItem extends Destination {
  label: string;
}

/** GET /api/destinations */
export interface DestinationList {
  items: DestinationItem[];
}

/** What a step is: the trunk, the inbound route FreePBX matched, a destination, or where a path breaks off. */
export type StepKind = "trunk" | "inbound-route" | DestinationKind | "loop" | "other";

export interface RoutingStep {
  kind: StepKind;
  /** The DID, the destination's number or id; empty where there is none. */
  target: string;
  /** The object as the console lists it ("Ring group 600 · Sales"). */
  label: string;
  /** Why the call is here and what happens to it, in the administrator's words. */
  why: string;
}

/** Where the call ends up: the destination it rests at and the extensions that ring there. */
export interface RoutingFinal {
  /** `other`: a FreePBX destination the console does not model (a custom one, a misc application). */
  kind: DestinationKind | "other";
  target: string;
  /** The extensions that ring (in the order they are rung); empty for voicemail, hang up, an announcement… */
  ringing: string[];
}

export interface RoutingPath {
  steps: RoutingStep[];
  final: RoutingFinal;
}

/**
 * POST /api/routing/simulate's answer: the path under the console's configuration (what the PBX does once
 * the pending plan is deployed); with `plan: true` also the path on the PBX as it is now, and whether the
 * deploy changes it.
 */
export interface SimulateAnswer extends RoutingPath {
  /** The instant simulated (ISO 8601). */
  at: string;
  live?: RoutingPath & { changed: boolean };
}

/** The digits a caller may press: what a telephone keypad sends. */
export const DIGITS_RE = /^[0-9*#]*$/;

/** POST /api/routing/simulate */
export const simulateSchema = lazySchema(() =>
  z.object({
    /** The number the caller dialled as the trunk delivers it; empty matches only an "any DID" route. */
    did: z
      .string({ error: "DID must be text" })
      .trim()
      .max(40, "DID must be at most 40 characters")
      .regex(/^\+?[0-9*#]*$/, "DID must be digits, optionally starting with +")
      .default(""),
    callerId: z
      .string({ error: "Caller ID must be text" })
      .trim()
      .max(40, "Caller ID must be at most 40 characters")
      .regex(/^\+?[0-9*#]*$/, "Caller ID must be digits, optionally starting with +")
      .default(""),
    /** When the call comes in; now when left out. */
    at: z.iso
      .datetime({ offset: true, error: "Time must be an ISO 8601 date and time, e.g. 2026-12-05T22:30:00Z" })
      .optional(),
    /** The digits the caller presses in IVRs, in order. */
    digits: z
      .string({ error: "Digits must be text" })
      .max(20, "Digits must be at most 20 keys")
      .regex(DIGITS_RE, "Digits must be 0-9, * or #")
      .default(""),
    /** Nobody answers: follow every no-answer and timeout destination to where the call ends. */
    unanswered: z.boolean({ error: "Unanswered must be true or false" }).default(false),
    /** Also answer for the PBX as it is now (reads the PBX over SSH). */
    plan: z.boolean({ error: "Plan must be true or false" }).default(false),
  }),
);
export type SimulateInput = z.output<typeof simulateSchema>;

/** A DID whose path a deploy changes (the deploy review lists them): its path on the PBX now and after. */
export interface RerouteCall {
  /** The DID; empty for the route of any DID. */
  did: string;
  /** Whether the difference shows only when nobody answers (a no-answer or timeout destination changed). */
  unanswered: boolean;
  now: RoutingPath;
  after: RoutingPath;
}

/** One object of a call flow, with where calls go on from it and when. */
export interface FlowNode {
  kind: StepKind;
  target: string;
  label: string;
  /** A destination the model should have and does not (a deleted extension…): calls there are lost. */
  missing: boolean;
  /** The flow came back to an object above it by itself (a loop): drawn once, not followed again. */
  loop: boolean;
  /** The caller's key came back to an IVR above it ("0: main menu"): not a loop, and not followed again. */
  back?: true;
  children: { when: string; node: FlowNode }[];
}

/** GET /api/routing/flows: each inbound route's flow as a tree, in the order the console lists the routes. */
export interface CallFlow {
  did: string;
  label: string;
  root: FlowNode;
}
