/**
 * An assistant's scripted test conversations (ADR 0072): the scripts with their last result, add and edit
 * (caller turns, what must happen), run one or all, and the history of runs newest first with each failure in
 * words. Runs end in the background; "ai-test-runs-updated" refreshes the lists as they start and end.
 */
import { useQuery } from "@tanstack/react-query";
import { FlaskConical, LoaderCircle, Pencil, Play, Plus, Trash2, X } from "lucide-react";
import { useId, useState } from "react";
import { Can } from "@/components/can";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { toast } from "@/components/ui/use-toast";
import { errorText, fieldMessages } from "@/lib/error-text";
import { formatDateTime } from "@/lib/format";
import { cn } from "@/lib/utils";
import { AI_TOOL_DEFS, AI_TOOLS, type AiAssistant, type AiTool } from "../../../shared/ai/assistants";
import type { TestRun, TestScript, TestScriptExpect, TestScriptRequest } from "../../../shared/ai/test-scripts";
import { testRunsQuery, testScriptsQuery, useDeleteTestScript, useRunTestScripts, useSaveTestScript } from "./api";

const selectClass =
  "h-9 w-full rounded-md border border-input bg-transparent px-3 py-1 text-sm shadow-xs outline-none focus-visible:border-ring focus-visible:ring-[3px] focus-visible:ring-ring/50 dark:bg-input/30";

/** A run's state as a badge ("Queued" while it waits or talks: the runs go one at a time). */
export function RunBadge({ run }: { run: TestRun | null }) {
  if (!run) return <Badge variant="outline">Not run</Badge>;
  switch (run.state) {
    case "passed":
      return <Badge variant="success">Passed</Badge>;
    case "failed":
      return <Badge variant="destructive">Failed</Badge>;
    case "error":
      return <Badge variant="warning">Error</Badge>;
    default:
      return (
        <Badge variant="secondary">
          <LoaderCircle className="animate-spin" aria-hidden />
          Running
        </Badge>
      );
  }
}

const TRIGGER_LABEL: Record<TestRun["trigger"], string> = { manual: "manual", "prompt-change": "prompt change" };

/** What a script expects, in one line. */
function expectText(e: TestScriptExpect): string {
  const parts: string[] = [];
  if (e.tool) {
    const args = Object.entries(e.tool.args ?? {}).map(([k, v]) => `${k}=${String(v)}`);
    parts.push(`${e.tool.name}${args.length ? ` (${args.join(", ")})` : ""}`);
  }
  if (e.transferTo) parts.push(`transfer to ${e.transferTo}`);
  if (e.verdict) parts.push(`verdict ${e.verdict}`);
  if (e.replyContains) parts.push(`reply contains "${e.replyContains}"`);
  return parts.join(" · ");
}

/** Opens the assistant's test scripts; every role may read them, operators run and edit. */
export function TestScriptsButton({ assistant }: { assistant: AiAssistant }) {
  const [open, setOpen] = useState(false);
  const [mounted, setMounted] = useState(false);
  return (
    <>
      <Button
        type="button"
        variant="outline"
        size="sm"
        className="justify-self-start"
        aria-label={`Regression suite of ${assistant.name}`}
        onClick={() => {
          setMounted(true);
          setOpen(true);
        }}
      >
        <FlaskConical />
        Regression suite
      </Button>
      {mounted && <TestScriptsDialog assistant={assistant} open={open} onOpenChange={setOpen} />}
    </>
  );
}

function TestScriptsDialog({
  assistant: a,
  open,
  onOpenChange,
}: {
  assistant: AiAssistant;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}) {
  const scripts = useQuery({ ...testScriptsQuery(a.id), enabled: open });
  const runs = useQuery({ ...testRunsQuery(a.id), enabled: open });
  // undefined: no form; null: a new script; else the script being edited.
  const [editing, setEditing] = useState<TestScript | null | undefined>(undefined);
  const run = useRunTestScripts(a.id, {
    onError: (err) => toast({ title: "Could not run", description: errorText(err) }),
  });
  const del = useDeleteTestScript(a.id, {
    onSuccess: () => toast({ title: "Test script deleted" }),
    onError: (err) => toast({ title: "Could not delete", description: errorText(err) }),
  });
  const list = scripts.data ?? [];
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent className="sm:max-w-3xl">
        <DialogHeader>
          <DialogTitle>Test scripts: {a.name}</DialogTitle>
          <DialogDescription>
            Caller turns and what must happen, run in text mode against the assistant's model with simulated tool
            results. Every script runs again when the prompt, tools or model change.
          </DialogDescription>
        </DialogHeader>
        <Can minRole="operator">
          <div className="flex flex-wrap gap-2">
            <Button type="button" size="sm" onClick={() => setEditing(null)} disabled={editing !== undefined}>
              <Plus />
              Add script
            </Button>
            <Button
              type="button"
              size="sm"
              variant="outline"
              disabled={!list.length || run.isPending}
              onClick={() => run.mutate(null)}
            >
              <Play />
              Run all
            </Button>
          </div>
        </Can>
        {editing !== undefined && (
          <ScriptForm
            key={editing?.id ?? "new"}
            assistantId={a.id}
            editing={editing}
            onDone={() => setEditing(undefined)}
          />
        )}
        <section aria-label="Scripts" className="grid gap-2">
          {scripts.isError && <p className="text-sm text-destructive">{errorText(scripts.error)}</p>}
          {scripts.isSuccess && !list.length && <p className="text-sm text-muted-foreground">No test scripts yet.</p>}
          <ul className="grid gap-2">
            {list.map((s) => (
              <li key={s.id} aria-label={s.name} className="grid gap-1 rounded-md border p-3">
                <div className="flex flex-wrap items-center justify-between gap-2">
                  <div className="flex min-w-0 items-center gap-2">
                    <span className="truncate font-medium">{s.name}</span>
                    <RunBadge run={s.lastRun} />
                    {s.lastRun && (
                      <span className="text-xs text-muted-foreground">{formatDateTime(s.lastRun.startedAt)}</span>
                    )}
                  </div>
                  <Can minRole="operator">
                    <div className="flex gap-1">
                      <Button
                        type="button"
                        size="sm"
                        variant="ghost"
                        aria-label={`Run ${s.name}`}
                        disabled={run.isPending}
                        onClick={() => run.mutate(s.id)}
                      >
                        <Play />
                        Run
                      </Button>
                      <Button
                        type="button"
                        size="sm"
                        variant="ghost"
                        aria-label={`Edit ${s.name}`}
                        onClick={() => setEditing(s)}
                      >
                        <Pencil />
                      </Button>
                      <Button
                        type="button"
                        size="sm"
                        variant="ghost"
                        aria-label={`Delete ${s.name}`}
                        disabled={del.isPending}
                        onClick={() => del.mutate(s.id)}
                      >
                        <Trash2 />
                      </Button>
                    </div>
                  </Can>
                </div>
                <p className="text-xs text-muted-foreground">
                  {s.turns.length} caller turn{s.turns.length === 1 ? "" : "s"} · expects {expectText(s.expect)}
                </p>
              </li>
            ))}
          </ul>
        </section>
        <section aria-label="History" className="grid gap-2">
          <h3 className="text-sm font-semibold">History</h3>
          {runs.isSuccess && !runs.data.length && <p className="text-sm text-muted-foreground">No runs yet.</p>}
          <ol className="grid gap-2">
            {(runs.data ?? []).map((r) => (
              <li key={r.id} aria-label={`Run ${r.id}`} className="grid gap-1 rounded-md border p-2 text-sm">
                <div className="flex flex-wrap items-center gap-2">
                  <RunBadge run={r} />
                  <span className="font-medium">{r.scriptName}</span>
                  <span className="text-xs text-muted-foreground">
                    {TRIGGER_LABEL[r.trigger]} · {formatDateTime(r.startedAt)}
                  </span>
                </div>
                {r.detail && <p className="text-xs text-muted-foreground">{r.detail}</p>}
                {!!r.result?.failures.length && (
                  <ul className="list-disc pl-5 text-xs text-destructive">
                    {r.result.failures.map((f) => (
                      <li key={f}>{f}</li>
                    ))}
                  </ul>
                )}
              </li>
            ))}
          </ol>
        </section>
      </DialogContent>
    </Dialog>
  );
}

interface FormState {
  name: string;
  turns: string[];
  tool: AiTool | "";
  /** `name=value` per line. */
  args: string;
  transferTo: string;
  verdict: "" | "success" | "failure";
  replyContains: string;
}

const toForm = (s: TestScript | null): FormState => ({
  name: s?.name ?? "",
  turns: s?.turns.length ? [...s.turns] : [""],
  tool: (s?.expect.tool?.name as AiTool | undefined) ?? "",
  args: Object.entries(s?.expect.tool?.args ?? {})
    .map(([k, v]) => `${k}=${String(v)}`)
    .join("\n"),
  transferTo: s?.expect.transferTo ?? "",
  verdict: s?.expect.verdict ?? "",
  replyContains: s?.expect.replyContains ?? "",
});

function toBody(f: FormState): TestScriptRequest {
  const args: Record<string, string> = {};
  for (const line of f.args.split("\n")) {
    const at = line.indexOf("=");
    if (at > 0) args[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  const expect: TestScriptExpect = {};
  if (f.tool) expect.tool = Object.keys(args).length ? { name: f.tool, args } : { name: f.tool };
  if (f.transferTo.trim()) expect.transferTo = f.transferTo.trim();
  if (f.verdict) expect.verdict = f.verdict;
  if (f.replyContains.trim()) expect.replyContains = f.replyContains.trim();
  return { name: f.name, turns: f.turns, expect };
}

function FieldError({ id, message }: { id: string; message?: string }) {
  return message ? (
    <p id={id} className="text-xs text-destructive">
      {message}
    </p>
  ) : null;
}

function ScriptForm({
  assistantId,
  editing,
  onDone,
}: {
  assistantId: number;
  editing: TestScript | null;
  onDone: () => void;
}) {
  const uid = useId();
  const [f, setF] = useState<FormState>(() => toForm(editing));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const save = useSaveTestScript(assistantId, editing?.id ?? null, {
    onSuccess: () => {
      toast({ title: editing ? "Test script saved" : "Test script added" });
      onDone();
    },
    onError: (err) => {
      const fields = fieldMessages(err);
      setErrors(fields ?? { _: errorText(err) });
    },
  });
  const set = <K extends keyof FormState>(key: K, value: FormState[K]) => setF((v) => ({ ...v, [key]: value }));
  const argError = Object.entries(errors).find(([k]) => k.startsWith("expect.tool.args"))?.[1];
  const general = errors._ ?? errors.expect;
  const id = (name: string) => `${uid}-${name}`;
  const err = (name: string) => (errors[name] ? { "aria-invalid": true, "aria-describedby": id(`${name}-error`) } : {});
  return (
    <form
      aria-label={editing ? `Edit ${editing.name}` : "New test script"}
      className="grid gap-3 rounded-md border p-3"
      onSubmit={(e) => {
        e.preventDefault();
        setErrors({});
        save.mutate(toBody(f));
      }}
    >
      <div className="grid gap-1">
        <Label htmlFor={id("name")}>Script name</Label>
        <Input id={id("name")} value={f.name} onChange={(e) => set("name", e.target.value)} {...err("name")} />
        <FieldError id={id("name-error")} message={errors.name} />
      </div>
      <fieldset className="grid gap-2">
        <legend className="mb-1 text-sm font-medium">Caller turns</legend>
        {f.turns.map((turn, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a turn is its place in the list
          <div key={i} className="grid gap-1">
            <div className="flex gap-2">
              <Input
                aria-label={`Caller turn ${i + 1}`}
                value={turn}
                onChange={(e) =>
                  set(
                    "turns",
                    f.turns.map((t, j) => (j === i ? e.target.value : t)),
                  )
                }
                {...err(`turns.${i}`)}
              />
              <Button
                type="button"
                variant="ghost"
                size="sm"
                aria-label={`Remove caller turn ${i + 1}`}
                disabled={f.turns.length === 1}
                onClick={() =>
                  set(
                    "turns",
                    f.turns.filter((_, j) => j !== i),
                  )
                }
              >
                <X />
              </Button>
            </div>
            <FieldError id={id(`turns.${i}-error`)} message={errors[`turns.${i}`]} />
          </div>
        ))}
        <FieldError id={id("turns-error")} message={errors.turns} />
        <Button
          type="button"
          variant="outline"
          size="sm"
          className="justify-self-start"
          disabled={f.turns.length >= 20}
          onClick={() => set("turns", [...f.turns, ""])}
        >
          <Plus />
          Add caller turn
        </Button>
      </fieldset>
      <fieldset className="grid gap-3 sm:grid-cols-2">
        <legend className="mb-1 text-sm font-medium">What must happen</legend>
        <div className="grid gap-1">
          <Label htmlFor={id("tool")}>Tool called</Label>
          <select
            id={id("tool")}
            className={selectClass}
            value={f.tool}
            onChange={(e) => set("tool", e.target.value as FormState["tool"])}
          >
            <option value="">None</option>
            {AI_TOOLS.map((t) => (
              <option key={t} value={t}>
                {AI_TOOL_DEFS[t].label} ({t})
              </option>
            ))}
          </select>
          <FieldError id={id("expect.tool.name-error")} message={errors["expect.tool.name"]} />
        </div>
        <div className="grid gap-1">
          <Label htmlFor={id("args")}>With arguments (name=value per line)</Label>
          <textarea
            id={id("args")}
            rows={2}
            className={cn(selectClass, "h-auto font-mono")}
            value={f.args}
            disabled={!f.tool}
            onChange={(e) => set("args", e.target.value)}
          />
          <FieldError id={id("args-error")} message={argError} />
        </div>
        <div className="grid gap-1">
          <Label htmlFor={id("expect.transferTo")}>Transferred to</Label>
          <Input
            id={id("expect.transferTo")}
            inputMode="tel"
            value={f.transferTo}
            onChange={(e) => set("transferTo", e.target.value)}
            {...err("expect.transferTo")}
          />
          <FieldError id={id("expect.transferTo-error")} message={errors["expect.transferTo"]} />
        </div>
        <div className="grid gap-1">
          <Label htmlFor={id("expect.verdict")}>Verdict of the analysis</Label>
          <select
            id={id("expect.verdict")}
            className={selectClass}
            value={f.verdict}
            onChange={(e) => set("verdict", e.target.value as FormState["verdict"])}
            {...err("expect.verdict")}
          >
            <option value="">Any</option>
            <option value="success">Success</option>
            <option value="failure">Failure</option>
          </select>
          <FieldError id={id("expect.verdict-error")} message={errors["expect.verdict"]} />
        </div>
        <div className="grid gap-1 sm:col-span-2">
          <Label htmlFor={id("expect.replyContains")}>A reply contains</Label>
          <Input
            id={id("expect.replyContains")}
            value={f.replyContains}
            onChange={(e) => set("replyContains", e.target.value)}
            {...err("expect.replyContains")}
          />
          <FieldError id={id("expect.replyContains-error")} message={errors["expect.replyContains"]} />
        </div>
      </fieldset>
      {general && (
        <p role="alert" className="text-sm text-destructive">
          {general}
        </p>
      )}
      <div className="flex justify-end gap-2">
        <Button type="button" variant="outline" onClick={onDone}>
          Cancel
        </Button>
        <Button type="submit" disabled={save.isPending}>
          {save.isPending && <LoaderCircle className="animate-spin" aria-hidden />}
          {editing ? "Save script" : "Add script"}
        </Button>
      </div>
    </form>
  );
}
