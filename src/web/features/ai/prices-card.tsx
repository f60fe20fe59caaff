/**
 * The price table that turns an AI call's token usage into its cost (ADR 0070): USD per million tokens of each
 * kind, per model. An administrator edits it (rows added and removed, every price required, none negative: the
 * shared schema, again on the server); everyone else reads it. A call's cost uses the row of its model as the
 * table is when the call ends.
 */
import { useQuery } from "@tanstack/react-query";
import { CircleDollarSign, LoaderCircle, Plus, X } from "lucide-react";
import { useEffect, useId } from "react";
import { type Path, useFieldArray } from "react-hook-form";
import type { z } from "zod";
import { useSchemaForm } from "@/components/form-kit";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { CellField, FormError } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { toast } from "@/components/ui/use-toast";
import { useCan } from "@/hooks/use-role";
import { errorText } from "@/lib/error-text";
import { formatDateTime } from "@/lib/format";
import { aiPricesSchema, type ModelPrice, PRICE_FIELDS } from "../../../shared/ai/measures";
import { aiPricesQuery, useSaveAiPrices } from "./api";
import { PRICE_LABELS } from "./measures-format";

type FormInput = z.input<typeof aiPricesSchema>;
const COLUMNS = ["model", ...PRICE_FIELDS] as const;

function Cell(props: Omit<Parameters<typeof CellField>[0], "as" | "className">) {
  return <CellField {...props} as="td" className="py-1.5 pr-2 align-top" />;
}

function Head() {
  return (
    <thead>
      <tr className="border-b text-left text-muted-foreground text-xs">
        <th scope="col" className="py-1.5 pr-2 font-medium">
          Model
        </th>
        {PRICE_FIELDS.map((f) => (
          <th key={f} scope="col" className="py-1.5 pr-2 font-medium">
            {PRICE_LABELS[f]}
          </th>
        ))}
      </tr>
    </thead>
  );
}

function ReadOnlyTable({ items }: { items: ModelPrice[] }) {
  return (
    <table className="w-full min-w-[44rem] text-sm" data-testid="ai-prices-table">
      <caption className="sr-only">USD per million tokens, per model</caption>
      <Head />
      <tbody>
        {items.map((p) => (
          <tr key={p.model} className="border-b last:border-0">
            <th scope="row" className="py-1.5 pr-2 text-left font-mono font-normal">
              {p.model}
            </th>
            {PRICE_FIELDS.map((f) => (
              <td key={f} className="py-1.5 pr-2 tabular-nums">
                {p[f]}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const EMPTY_ROW = { model: "" } as FormInput["items"][number];

function PricesForm({ items }: { items: ModelPrice[] }) {
  const { form, formError, showServerError, submit } = useSchemaForm(aiPricesSchema, { items });
  // biome-ignore lint/correctness/useExhaustiveDependencies: the form follows the table as saved (here or elsewhere)
  useEffect(() => form.reset({ items }), [items]);
  const { fields, append, remove } = useFieldArray({ control: form.control, name: "items" });
  const errors = form.formState.errors.items;
  const listError = errors?.root?.message ?? errors?.message;
  const save = useSaveAiPrices({
    onSuccess: () => toast({ title: "Prices saved" }),
    onError: (err) => {
      const names = fields.flatMap((_, i) => COLUMNS.map((c) => `items.${i}.${c}` as Path<FormInput>));
      const message = showServerError(err, ["items", ...names]);
      toast({ variant: "destructive", title: "Failed to save the prices", description: message ?? errorText(err) });
    },
  });
  return (
    <form noValidate aria-label="AI prices" className="grid gap-3" onSubmit={submit((values) => save.mutate(values))}>
      {/* Positioned: the cells' visually hidden labels scroll with the table instead of widening the page. */}
      <div className="relative overflow-x-auto">
        <table className="w-full min-w-[60rem] text-sm" data-testid="ai-prices-table">
          <caption className="sr-only">USD per million tokens, per model</caption>
          <Head />
          <tbody>
            {fields.map((field, i) => {
              const n = i + 1;
              const row = errors?.[i];
              return (
                <tr key={field.id} data-testid="ai-price-row">
                  <Cell label={`Model of row ${n}`} error={row?.model?.message}>
                    {(c) => (
                      <Input
                        {...c}
                        className="min-w-52 font-mono"
                        placeholder="gpt-realtime"
                        {...form.register(`items.${i}.model`)}
                      />
                    )}
                  </Cell>
                  {PRICE_FIELDS.map((f) => (
                    <Cell key={f} label={`${PRICE_LABELS[f]} of row ${n}`} error={row?.[f]?.message}>
                      {(c) => (
                        <Input
                          {...c}
                          type="number"
                          inputMode="decimal"
                          step="any"
                          min={0}
                          {...form.register(`items.${i}.${f}`, { valueAsNumber: true })}
                        />
                      )}
                    </Cell>
                  ))}
                  <td className="py-1.5 align-top">
                    <Button
                      type="button"
                      variant="ghost"
                      size="icon"
                      className="size-9 text-muted-foreground hover:text-destructive"
                      aria-label={`Remove row ${n}`}
                      title={`Remove row ${n}`}
                      onClick={() => remove(i)}
                    >
                      <X />
                    </Button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {fields.length === 0 && (
        <p className="rounded-md border border-dashed p-3 text-muted-foreground text-sm">
          No models: no call can be priced until one is listed.
        </p>
      )}
      {listError && <p className="text-destructive text-sm">{listError}</p>}
      <FormError message={formError} />
      <div className="flex flex-wrap gap-2">
        <Button type="button" variant="outline" onClick={() => append(EMPTY_ROW)}>
          <Plus />
          Add model
        </Button>
        <Button type="submit" disabled={save.isPending}>
          {save.isPending && <LoaderCircle className="animate-spin" />}
          Save prices
        </Button>
      </div>
    </form>
  );
}

export function PricesCard() {
  const titleId = useId();
  const prices = useQuery(aiPricesQuery());
  const admin = useCan("admin");
  const d = prices.data;
  return (
    <Card role="region" aria-labelledby={titleId} className="gap-4" data-testid="ai-prices">
      <CardHeader>
        <CardTitle id={titleId} className="flex items-center gap-2">
          <CircleDollarSign className="size-4 text-muted-foreground" aria-hidden />
          Prices
        </CardTitle>
        <CardDescription>
          USD per million tokens, per model: what a call's cost is computed with when it ends.{" "}
          {d &&
            (d.updatedAt
              ? `Saved ${formatDateTime(d.updatedAt)}.`
              : "OpenAI's list prices apply until an administrator saves the table.")}
        </CardDescription>
      </CardHeader>
      <CardContent>
        {prices.isError && <FormError message={`Could not load the prices: ${errorText(prices.error)}`} />}
        {d &&
          (admin ? (
            <PricesForm items={d.items} />
          ) : (
            <section
              aria-label="Prices per model"
              // Scrolls sideways on a narrow screen: focusable, so the keyboard can scroll it too.
              // biome-ignore lint/a11y/noNoninteractiveTabindex: see above
              tabIndex={0}
              className="relative overflow-x-auto rounded-md outline-none focus-visible:ring-[3px] focus-visible:ring-ring/50"
            >
              <ReadOnlyTable items={d.items} />
            </section>
          ))}
      </CardContent>
    </Card>
  );
}
