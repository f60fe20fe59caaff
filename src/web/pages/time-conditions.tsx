import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { CalendarClock, Clock } from "lucide-react";
import { type ReactNode, useId } from "react";
import { EmptyState } from "@/components/empty-state";
import { ListBody, ScreenHeader } from "@/components/list-kit";
import { destinationsQuery } from "@/features/routing/api";
import { undoableDeleteToasts } from "@/features/safe-delete/undo-toast";
import {
  timeConditionsQuery,
  timeGroupsQuery,
  useDeleteTimeCondition,
  useDeleteTimeGroup,
} from "@/features/time-conditions/api";
import { TimeConditionCard } from "@/features/time-conditions/time-condition-card";
import { TimeGroupCard } from "@/features/time-conditions/time-group-card";
import { AddTimeConditionDialog, AddTimeGroupDialog } from "@/forms/inventory-deferred";
import { POLL_LIST_MS } from "@/lib/constants";
import { runningFor } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";

/** One of the screen's two lists: its heading with its Add button, then its cards. */
function Section({ title, action, children }: { title: string; action: ReactNode; children: ReactNode }) {
  const headingId = useId();
  return (
    <section aria-labelledby={headingId} className="grid gap-4">
      <div className="flex flex-wrap items-center justify-between gap-4">
        <h2 id={headingId} className="font-semibold text-lg">
          {title}
        </h2>
        {action}
      </div>
      {children}
    </section>
  );
}

export function TimeConditionsPage() {
  const groups = useQuery({ ...timeGroupsQuery(), refetchInterval: POLL_LIST_MS });
  const conditions = useQuery({ ...timeConditionsQuery(), refetchInterval: POLL_LIST_MS });
  // The condition cards name where each sends calls as the pickers do ("Ring group 600 · Sales").
  const destinations = useQuery(destinationsQuery());
  const delGroup = useDeleteTimeGroup(
    undoableDeleteToasts("Time group deleted", "Failed to delete time group.", [queryKeys.timeGroups]),
  );
  const delCondition = useDeleteTimeCondition(
    undoableDeleteToasts("Time condition deleted", "Failed to delete time condition.", [
      queryKeys.timeConditions,
      queryKeys.destinations,
    ]),
  );

  return (
    <>
      <ScreenHeader
        title="Time Conditions"
        subtitle="Open hours and holidays, and where calls go in them and outside them"
      />
      <p className="text-muted-foreground text-sm">
        To force a time condition open or closed on the PBX now, use its override on{" "}
        <Link to="/call-routing" className="font-medium text-primary underline-offset-4 hover:underline">
          Call Routing
        </Link>
        .
      </p>
      <div className="grid gap-8">
        <Section title="Time groups" action={<AddTimeGroupDialog />}>
          <ListBody
            query={groups}
            layout="grid"
            label="Time groups"
            empty={
              <EmptyState
                icon={Clock}
                title="No Time Groups"
                description="Create a time group with your weekly hours and holidays: time conditions read it."
                viewerDescription="No time group sets open hours yet."
              />
            }
          >
            {(items) =>
              items.map((g) => (
                <TimeGroupCard
                  key={g.id}
                  group={g}
                  deleting={runningFor(delGroup, g.id)}
                  onDelete={() => delGroup.mutateAsync(g.id)}
                />
              ))
            }
          </ListBody>
        </Section>
        <Section title="Time conditions" action={<AddTimeConditionDialog />}>
          <ListBody
            query={conditions}
            layout="grid"
            label="Time conditions"
            waitFor={destinations.isPending || groups.isPending}
            empty={
              <EmptyState
                icon={CalendarClock}
                title="No Time Conditions"
                description="Create a time condition to send calls one way in a time group's hours and another outside them."
                viewerDescription="No time condition sends calls by the hour yet."
              />
            }
          >
            {(items) =>
              items.map((c) => (
                <TimeConditionCard
                  key={c.id}
                  condition={c}
                  groups={groups.data}
                  deleting={runningFor(delCondition, c.id)}
                  onDelete={() => delCondition.mutateAsync(c.id)}
                />
              ))
            }
          </ListBody>
        </Section>
      </div>
    </>
  );
}
