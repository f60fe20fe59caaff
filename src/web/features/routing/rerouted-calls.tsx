import type { RerouteCall } from "../../../shared/routing";
import { finalText, PathView } from "./path-view";

/**
 * The deploy review's list of the DIDs whose calls the plan reroutes: where each call ends on the PBX now and
 * after the deploy, with both paths step by step under it.
 */
export function ReroutedCalls({ calls }: { calls: readonly RerouteCall[] }) {
  if (calls.length === 0) return null;
  return (
    <section aria-label="Calls this deploy reroutes" className="grid gap-2">
      <h3 className="font-medium text-sm">Calls this deploy reroutes ({calls.length})</h3>
      <ul className="grid gap-2 text-sm">
        {calls.map((c) => (
          <li key={c.did} className="rounded-md border p-2" data-did={c.did}>
            <details>
              <summary className="cursor-pointer">
                <span className="font-medium">{c.did ? `DID ${c.did}` : "Any DID"}</span>
                {c.unanswered && <span className="text-muted-foreground"> (when nobody answers)</span>}:{" "}
                <span className="text-muted-foreground">{finalText(c.now.final)}</span> →{" "}
                <span className="font-medium">{finalText(c.after.final)}</span>
              </summary>
              <div className="mt-3 grid gap-4 lg:grid-cols-2">
                <PathView path={c.now} label={`${c.did || "Any DID"} on the PBX now`} />
                <PathView path={c.after} label={`${c.did || "Any DID"} after the deploy`} />
              </div>
            </details>
          </li>
        ))}
      </ul>
    </section>
  );
}
