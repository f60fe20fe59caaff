import { useQuery } from "@tanstack/react-query";
import { LoaderCircle, Search } from "lucide-react";
import { type FormEvent, useState } from "react";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { FormError } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { errorText } from "@/lib/error-text";
import { FLEET_KIND_LABELS } from "../../../shared/fleet";
import { fleetSearchQuery } from "./api";

/** Searches every member at once: an extension, a number, a name; each hit names its console. */
export function FleetSearch() {
  const [text, setText] = useState("");
  const [q, setQ] = useState("");
  const search = useQuery(fleetSearchQuery(q));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setQ(text.trim());
  };
  const answer = search.data;
  return (
    <Card>
      <CardHeader>
        <CardTitle>
          <h2>Search the fleet</h2>
        </CardTitle>
      </CardHeader>
      <CardContent className="grid gap-4">
        <search aria-label="Search the fleet">
          <form className="flex gap-2" onSubmit={submit}>
            <Input
              aria-label="Extension, number or name"
              placeholder="Extension, number or name"
              value={text}
              maxLength={100}
              onChange={(e) => setText(e.target.value)}
            />
            <Button type="submit" disabled={text.trim() === "" || search.isFetching}>
              {search.isFetching ? <LoaderCircle className="animate-spin" aria-hidden /> : <Search aria-hidden />}
              Search
            </Button>
          </form>
        </search>
        {search.isError && <FormError message={`The search failed: ${errorText(search.error)}`} />}
        {answer && (
          <div className="grid gap-3" aria-live="polite">
            {answer.items.length === 0 ? (
              <p className="text-muted-foreground text-sm">Nothing found for “{q}”.</p>
            ) : (
              <ul aria-label="Search results" className="grid gap-1 text-sm">
                {answer.items.map((hit) => (
                  <li
                    key={`${hit.memberId}:${hit.kind}:${hit.key}`}
                    className="flex flex-wrap items-baseline gap-x-3"
                    data-testid="fleet-hit"
                  >
                    <span className="min-w-32 font-medium">{hit.memberName}</span>
                    <span className="text-muted-foreground">{FLEET_KIND_LABELS[hit.kind]}</span>
                    <a
                      href={hit.href}
                      target="_blank"
                      rel="noreferrer noopener"
                      className="underline-offset-4 hover:underline"
                    >
                      {hit.label}
                    </a>
                  </li>
                ))}
              </ul>
            )}
            {answer.notSearched.length > 0 && (
              <div className="text-sm" data-testid="fleet-not-searched">
                <p className="font-medium">Not searched</p>
                <ul className="text-muted-foreground">
                  {answer.notSearched.map((n) => (
                    <li key={n.memberId}>
                      {n.memberName}: {n.reason}
                    </li>
                  ))}
                </ul>
              </div>
            )}
          </div>
        )}
      </CardContent>
    </Card>
  );
}
