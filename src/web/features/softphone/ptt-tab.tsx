import { useQuery } from "@tanstack/react-query";
import { Radio } from "lucide-react";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Skeleton } from "@/components/ui/skeleton";
import { pttGroupsQuery } from "@/features/ptt/api";

/** The PTT/paging groups the app can join; those the chosen extension is in travel with its config. */
export function PttTab({ extension }: { extension: string | null }) {
  const groups = useQuery({ ...pttGroupsQuery(), refetchOnMount: "always" });

  return (
    <Card>
      <CardHeader>
        <CardTitle>Push-to-talk and paging</CardTitle>
        <CardDescription>
          Groups an extension belongs to are included in its configuration and appear in the app.
        </CardDescription>
      </CardHeader>
      <CardContent>
        {!groups.data ? (
          groups.isError ? (
            <p className="text-destructive text-sm">Could not load PTT groups: {groups.error.message}</p>
          ) : (
            <div className="grid gap-2">
              <Skeleton className="h-14 w-full" />
              <Skeleton className="h-14 w-full" />
            </div>
          )
        ) : groups.data.length === 0 ? (
          <div className="flex flex-col items-center gap-2 py-8 text-center text-muted-foreground">
            <Radio className="size-8" aria-hidden />
            <p>No PTT groups configured</p>
          </div>
        ) : (
          <ul className="divide-y rounded-md border" aria-label="PTT groups">
            {groups.data.map((g) => {
              const included = extension !== null && g.members.includes(extension);
              return (
                <li key={g.id} className="flex flex-wrap items-center justify-between gap-3 px-4 py-3">
                  <div className="flex min-w-0 items-center gap-3">
                    <Radio className="size-4 shrink-0 text-muted-foreground" aria-hidden />
                    <div className="min-w-0">
                      <p className="truncate font-medium">{g.name}</p>
                      <p className="text-muted-foreground text-sm">
                        Extension <span className="font-mono">{g.extension}</span> · {g.members.length}{" "}
                        {g.members.length === 1 ? "member" : "members"}
                      </p>
                    </div>
                  </div>
                  <div className="flex items-center gap-2">
                    {included && <Badge variant="success">In this configuration</Badge>}
                    <Badge variant={g.duplex ? "default" : "secondary"}>{g.duplex ? "Duplex" : "Simplex"}</Badge>
                  </div>
                </li>
              );
            })}
          </ul>
        )}
      </CardContent>
    </Card>
  );
}
