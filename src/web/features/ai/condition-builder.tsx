/**
 * The routing rule's conditions and action parameters as form controls (ADR 0040): rows of
 * conditions (sentiment, intent, transcript keywords, caller number pattern, time of day, or any other call
 * fact) matched all or any, and the fields the chosen action needs. Both still travel as the JSON text the
 * API stores; the user never types it. The shared schema (src/shared/ai/routing-rules.ts) checks it on submit
 * and on the server, with the same messages.
 */
import { useQuery } from "@tanstack/react-query";
import { Plus, X } from "lucide-react";
import { useEffect, useId, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { Checkbox } from "@/components/ui/checkbox";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { extensionsQuery } from "@/features/extensions/api";
import { cn } from "@/lib/utils";
import {
  ACTION_PARAM_FIELDS,
  CONDITION_KINDS,
  type ConditionKind,
  conditionsForBuilder,
  parseJsonObject,
  type RoutingAction,
  SENTIMENTS,
  WEEKDAYS,
  type Weekday,
} from "../../../shared/ai/routing-rules";
import { byNumber } from "../../../shared/sort";
import { assistantsQuery } from "./api";

/** One row as edited: every kind's fields, so switching the kind back keeps what was typed. */
interface Row {
  key: number;
  kind: ConditionKind;
  op: string;
  value: string;
  list: string;
  pattern: string;
  from: string;
  to: string;
  days: Weekday[];
  fact: string;
}

const KIND_LABELS: Record<ConditionKind, string> = {
  sentiment: "Sentiment",
  intent: "Intent",
  keywords: "Transcript contains",
  caller: "Caller number",
  time: "Time of day",
  fact: "Other call fact",
};
const OPS: Partial<Record<ConditionKind, { value: string; label: string }[]>> = {
  sentiment: [
    { value: "is", label: "is" },
    { value: "is_not", label: "is not" },
  ],
  intent: [
    { value: "is", label: "is any of" },
    { value: "is_not", label: "is none of" },
  ],
  caller: [
    { value: "matches", label: "matches pattern" },
    { value: "starts_with", label: "starts with" },
  ],
};
const DAY_LABELS: Record<Weekday, string> = {
  mon: "Mon",
  tue: "Tue",
  wed: "Wed",
  thu: "Thu",
  fri: "Fri",
  sat: "Sat",
  sun: "Sun",
};

let nextKey = 1;
const blank = (kind: ConditionKind = "sentiment"): Row => ({
  key: nextKey++,
  kind,
  op: OPS[kind]?.[0]?.value ?? "",
  value: "negative",
  list: "",
  pattern: "",
  from: "09:00",
  to: "17:00",
  days: ["mon", "tue", "wed", "thu", "fri"],
  fact: "",
});

const splitList = (text: string) =>
  text
    .split(",")
    .map((w) => w.trim())
    .filter(Boolean);

/** The rows and match mode of stored conditions text (null when it cannot be read). */
function rowsOf(text: string): { match: "all" | "any"; rows: Row[] } | null {
  const parsed = conditionsForBuilder(text);
  if (!parsed) return null;
  const rows = parsed.conditions.map((c): Row => {
    const row = blank(c.kind);
    switch (c.kind) {
      case "sentiment":
        return { ...row, op: c.op, value: c.value };
      case "intent":
        return { ...row, op: c.op, list: c.values.join(", ") };
      case "keywords":
        return { ...row, list: c.any.join(", ") };
      case "caller":
        return { ...row, op: c.op, pattern: c.pattern };
      case "time":
        return { ...row, from: c.from, to: c.to, days: [...c.days] };
      case "fact":
        return { ...row, fact: c.key, list: c.values.join(", ") };
    }
    return row;
  });
  return { match: parsed.match, rows };
}

/** The JSON text of the rows: each row with its kind's fields only. */
function textOf(match: "all" | "any", rows: Row[]): string {
  const conditions = rows.map((r) => {
    switch (r.kind) {
      case "sentiment":
        return { kind: r.kind, op: r.op, value: r.value };
      case "intent":
        return { kind: r.kind, op: r.op, values: splitList(r.list) };
      case "keywords":
        return { kind: r.kind, any: splitList(r.list) };
      case "caller":
        return { kind: r.kind, op: r.op, pattern: r.pattern.trim() };
      case "time":
        return { kind: r.kind, from: r.from, to: r.to, days: r.days };
      case "fact":
        return { kind: r.kind, key: r.fact.trim(), values: splitList(r.list) };
    }
    return { kind: r.kind };
  });
  return JSON.stringify({ match, conditions });
}

const selectClass =
  "h-9 rounded-md border border-input bg-transparent px-2 text-sm shadow-xs outline-none focus-visible:border-ring focus-visible:ring-[3px] focus-visible:ring-ring/50 dark:bg-input/30";

function NativeSelect({
  label,
  value,
  onChange,
  options,
  className,
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  options: readonly { value: string; label: string }[];
  className?: string;
}) {
  return (
    <select
      aria-label={label}
      className={cn(selectClass, className)}
      value={value}
      onChange={(e) => onChange(e.target.value)}
    >
      {options.map((o) => (
        <option key={o.value} value={o.value}>
          {o.label}
        </option>
      ))}
    </select>
  );
}

/** The conditions of a rule: `text` is the stored JSON; every change calls `onChange` with new JSON text. */
export function ConditionBuilder({
  text,
  onChange,
  error,
}: {
  text: string;
  onChange: (text: string) => void;
  error?: string;
}) {
  const id = useId();
  const [state, setState] = useState(() => rowsOf(text) ?? { match: "all" as const, rows: [] });
  const [unreadable, setUnreadable] = useState(() => (rowsOf(text) ? null : text));
  const emitted = useRef(text);

  // A new text from outside (the dialog filled the form for another rule): start again from it.
  useEffect(() => {
    if (text === emitted.current) return;
    emitted.current = text;
    const read = rowsOf(text);
    setState(read ?? { match: "all", rows: [] });
    setUnreadable(read ? null : text);
  }, [text]);

  const update = (next: { match: "all" | "any"; rows: Row[] }) => {
    setState(next);
    const out = textOf(next.match, next.rows);
    emitted.current = out;
    onChange(out);
  };
  const setRow = (key: number, patch: Partial<Row>) =>
    update({ ...state, rows: state.rows.map((r) => (r.key === key ? { ...r, ...patch } : r)) });

  return (
    <fieldset className="grid gap-3" aria-describedby={error ? `${id}-error` : undefined}>
      <legend className="mb-2 font-medium text-sm">Conditions</legend>
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <span>Match</span>
        <NativeSelect
          label="Match"
          value={state.match}
          onChange={(v) => update({ ...state, match: v as "all" | "any" })}
          options={[
            { value: "all", label: "all conditions" },
            { value: "any", label: "any condition" },
          ]}
        />
      </div>
      {unreadable?.trim() && (
        <p className="rounded-md border border-dashed p-2 text-muted-foreground text-xs">
          The stored conditions could not be read (<code className="break-all">{unreadable.slice(0, 200)}</code>);
          saving replaces them with the rows below.
        </p>
      )}
      {state.rows.length === 0 && (
        <p className="text-muted-foreground text-sm">No conditions: the rule matches every call.</p>
      )}
      <ol className="grid gap-2" aria-label="Conditions">
        {state.rows.map((r, i) => {
          const n = i + 1;
          return (
            <li
              key={r.key}
              className="flex flex-wrap items-center gap-2 rounded-md border p-2"
              data-testid="condition-row"
            >
              <NativeSelect
                label={`Condition ${n}`}
                value={r.kind}
                onChange={(v) => {
                  const kind = v as ConditionKind;
                  setRow(r.key, { kind, op: OPS[kind]?.[0]?.value ?? "" });
                }}
                options={CONDITION_KINDS.map((k) => ({ value: k, label: KIND_LABELS[k] }))}
              />
              {r.kind === "fact" && (
                <Input
                  aria-label={`Condition ${n} fact name`}
                  placeholder="calledNumber"
                  className="w-36"
                  value={r.fact}
                  onChange={(e) => setRow(r.key, { fact: e.target.value })}
                />
              )}
              {OPS[r.kind] && (
                <NativeSelect
                  label={`Condition ${n} operator`}
                  value={r.op}
                  onChange={(v) => setRow(r.key, { op: v })}
                  options={OPS[r.kind] ?? []}
                />
              )}
              {r.kind === "fact" && <span className="text-sm">is any of</span>}
              {r.kind === "sentiment" && (
                <NativeSelect
                  label={`Condition ${n} sentiment`}
                  value={r.value}
                  onChange={(v) => setRow(r.key, { value: v })}
                  options={SENTIMENTS.map((v) => ({ value: v, label: v }))}
                />
              )}
              {(r.kind === "intent" || r.kind === "keywords" || r.kind === "fact") && (
                <Input
                  aria-label={`Condition ${n} ${r.kind === "keywords" ? "keywords" : r.kind === "intent" ? "intents" : "values"} (comma separated)`}
                  placeholder={
                    r.kind === "keywords" ? "refund, cancel" : r.kind === "intent" ? "billing, sales" : "1001"
                  }
                  className="min-w-40 flex-1"
                  value={r.list}
                  onChange={(e) => setRow(r.key, { list: e.target.value })}
                />
              )}
              {r.kind === "caller" && (
                <Input
                  aria-label={`Condition ${n} pattern`}
                  placeholder={r.op === "starts_with" ? "+44" : "NXXNXXXXXX"}
                  className="w-44 font-mono"
                  value={r.pattern}
                  onChange={(e) => setRow(r.key, { pattern: e.target.value })}
                />
              )}
              {r.kind === "time" && (
                <>
                  <span className="text-sm">between</span>
                  <Input
                    type="time"
                    aria-label={`Condition ${n} from`}
                    className="w-32"
                    value={r.from}
                    onChange={(e) => setRow(r.key, { from: e.target.value })}
                  />
                  <span className="text-sm">and</span>
                  <Input
                    type="time"
                    aria-label={`Condition ${n} to`}
                    className="w-32"
                    value={r.to}
                    onChange={(e) => setRow(r.key, { to: e.target.value })}
                  />
                  <fieldset className="flex flex-wrap gap-2">
                    <legend className="sr-only">Condition {n} days</legend>
                    {WEEKDAYS.map((d) => {
                      const boxId = `${id}-${r.key}-${d}`;
                      return (
                        <span key={d} className="flex items-center gap-1">
                          <Checkbox
                            id={boxId}
                            checked={r.days.includes(d)}
                            onCheckedChange={(on) =>
                              setRow(r.key, {
                                days: WEEKDAYS.filter((w) => (w === d ? on === true : r.days.includes(w))),
                              })
                            }
                          />
                          <Label htmlFor={boxId} className="font-normal text-xs">
                            {DAY_LABELS[d]}
                          </Label>
                        </span>
                      );
                    })}
                  </fieldset>
                </>
              )}
              <Button
                type="button"
                variant="ghost"
                size="icon"
                className="ml-auto"
                aria-label={`Remove condition ${n}`}
                onClick={() => update({ ...state, rows: state.rows.filter((x) => x.key !== r.key) })}
              >
                <X aria-hidden />
              </Button>
            </li>
          );
        })}
      </ol>
      <div>
        <Button
          type="button"
          variant="outline"
          size="sm"
          onClick={() => update({ ...state, rows: [...state.rows, blank()] })}
        >
          <Plus aria-hidden />
          Add condition
        </Button>
      </div>
      {error && (
        <p id={`${id}-error`} className="text-destructive text-sm">
          {error}
        </p>
      )}
    </fieldset>
  );
}

/** The action's own fields over its parameters (JSON text); parameters the form does not show are kept. */
export function ActionFields({
  action,
  text,
  onChange,
  error,
}: {
  action: string;
  text: string;
  onChange: (text: string) => void;
  error?: string;
}) {
  const id = useId();
  const params = parseJsonObject(text) ?? {};
  const field = ACTION_PARAM_FIELDS[action as RoutingAction];
  const set = (key: string, value: unknown) => {
    const next = { ...params };
    if (value === "" || value === undefined) delete next[key];
    else next[key] = value;
    onChange(JSON.stringify(next));
  };
  const value = field ? String(params[field] ?? "") : "";
  const extensions = useQuery({ ...extensionsQuery(), enabled: field === "extensionId" });
  const assistants = useQuery({ ...assistantsQuery(), enabled: field === "assistantId" });
  const errorNode = error && (
    <p id={`${id}-error`} className="text-destructive text-sm">
      {error}
    </p>
  );
  const described = error ? `${id}-error` : undefined;

  if (field === "extensionId") {
    const list = [...(extensions.data ?? [])].sort((a, b) => byNumber(a.extension, b.extension));
    return (
      <div className="grid gap-2">
        <Label htmlFor={`${id}-ext`}>{action === "send_voicemail" ? "Voicemail of extension" : "Extension"}</Label>
        <Input
          id={`${id}-ext`}
          list={`${id}-extensions`}
          inputMode="numeric"
          autoComplete="off"
          placeholder="Type a number or a name"
          aria-invalid={error ? true : undefined}
          aria-describedby={described}
          value={value}
          onChange={(e) => {
            // A name typed and picked from the list stands for its number.
            const typed = e.target.value;
            const byName = list.find((x) => `${x.extension} - ${x.name}` === typed);
            set("extensionId", byName ? byName.extension : typed.trim());
          }}
        />
        <datalist id={`${id}-extensions`}>
          {list.map((x) => (
            <option key={x.id} value={x.extension}>
              {x.name}
            </option>
          ))}
        </datalist>
        {errorNode}
      </div>
    );
  }
  if (field === "assistantId") {
    return (
      <div className="grid gap-2">
        <Label htmlFor={`${id}-assistant`}>Assistant</Label>
        <select
          id={`${id}-assistant`}
          className={selectClass}
          aria-describedby={described}
          value={value}
          onChange={(e) => set("assistantId", e.target.value ? Number(e.target.value) : undefined)}
        >
          <option value="">The called number's assistant</option>
          {(assistants.data ?? []).map((a) => (
            <option key={a.id} value={String(a.id)}>
              {a.name}
              {a.status === "inactive" ? " (inactive)" : ""}
            </option>
          ))}
        </select>
        {errorNode}
      </div>
    );
  }
  if (field === "number") {
    return (
      <div className="grid gap-2">
        <Label htmlFor={`${id}-number`}>IVR or queue number</Label>
        <Input
          id={`${id}-number`}
          inputMode="numeric"
          placeholder="7000"
          aria-invalid={error ? true : undefined}
          aria-describedby={described}
          value={value}
          onChange={(e) => set("number", e.target.value.trim())}
        />
        {errorNode}
      </div>
    );
  }
  return (
    <>
      {action === "hangup" && (
        <p className="text-muted-foreground text-sm">The call is rejected; nothing else to set.</p>
      )}
      {errorNode}
    </>
  );
}

/** When the action changes, the previous action's own parameter goes (others, e.g. `host`, stay). */
export function paramsForAction(text: string, from: string, to: string): string {
  const params = parseJsonObject(text) ?? {};
  const old = ACTION_PARAM_FIELDS[from as RoutingAction];
  const now = ACTION_PARAM_FIELDS[to as RoutingAction];
  if (old && old !== now) delete params[old];
  return JSON.stringify(params);
}
