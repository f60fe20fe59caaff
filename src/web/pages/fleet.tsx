import { useQuery } from "@tanstack/react-query";
import { Network } from "lucide-react";
import { RoleNotice } from "@/components/can";
import { EmptyState } from "@/components/empty-state";
import { ListBody, ScreenHeader } from "@/components/list-kit";
import { Card, CardContent } from "@/components/ui/card";
import { toast } from "@/components/ui/use-toast";
import { AddMemberDialog } from "@/features/fleet/add-member-dialog";
import { fleetQuery, useRemoveFleetMember, useRepinFleetMember } from "@/features/fleet/api";
import { FleetSearch } from "@/features/fleet/fleet-search";
import { FleetTable } from "@/features/fleet/fleet-table";
import { TemplatesCard } from "@/features/fleet/templates-card";
import { useCan } from "@/hooks/use-role";
import { errorText } from "@/lib/error-text";
import { afterConfirm, deleteToasts, runningFor } from "@/lib/mutations";

const TITLE = "Fleet";
const SUBTITLE = "Other consoles watched from this one: their health live, and one search across all of them";

export function FleetPage() {
  const isAdmin = useCan("admin");
  const fleet = useQuery({ ...fleetQuery(), select: (list) => list.items, enabled: isAdmin });
  const remove = useRemoveFleetMember(deleteToasts("Member removed", "Failed to remove member"));
  const repin = useRepinFleetMember({
    onSuccess: (m) => toast({ title: `The new certificate of ${m.name} is pinned` }),
    onError: (err) =>
      toast({ variant: "destructive", title: "Failed to accept the certificate", description: errorText(err) }),
  });
  if (!isAdmin) {
    return (
      <>
        <ScreenHeader title={TITLE} subtitle={SUBTITLE} />
        <RoleNotice cannot="manage the fleet" />
      </>
    );
  }
  return (
    <>
      <ScreenHeader title={TITLE} subtitle={SUBTITLE} action={<AddMemberDialog />} />
      <div className="grid gap-6">
        <ListBody
          query={fleet}
          layout="list"
          label="Fleet members"
          empty={
            <EmptyState
              icon={Network}
              title="No Members"
              description="Add another console by its https address and a REST API token made on it (Settings → REST API Tokens)."
            />
          }
        >
          {(items) => (
            <li className="list-none">
              <Card>
                <CardContent>
                  <FleetTable
                    members={items}
                    removing={(id) => runningFor(remove, id)}
                    onRemove={(m) =>
                      afterConfirm(`Remove ${m.name} from the fleet? Its token is deleted from this console.`, () =>
                        remove.mutate(m.id),
                      )
                    }
                    repinning={(id) => repin.isPending && repin.variables?.id === id}
                    onRepin={(m) =>
                      afterConfirm(
                        `Accept the certificate ${m.presentedPin} for ${m.name}? Only if you know why it changed.`,
                        () => m.presentedPin && repin.mutate({ id: m.id, fingerprint: m.presentedPin }),
                      )
                    }
                  />
                </CardContent>
              </Card>
            </li>
          )}
        </ListBody>
        <FleetSearch />
        <TemplatesCard members={fleet.data ?? []} />
      </div>
    </>
  );
}
