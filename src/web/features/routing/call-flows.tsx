import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { CornerDownRight } from "lucide-react";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import type { FlowNode, StepKind } from "../../../shared/routing";
import { callFlowsQuery } from "./api";
import { STEP_ICONS } from "./path-view";

/** The screen that lists an object of each kind (a node's link). */
const SCREEN_OF: Partial<Record<StepKind, string>> = {
  extension: "/extensions",
  voicemail: "/extensions",
  "ring-group": "/ring-groups",
  queue: "/queues",
  "page-group": "/ptt-groups",
  ivr: "/ivrs",
  announcement: "/announcements",
  "time-condition": "/time-conditions",
};

function Node({ node }: { node: FlowNode }) {
  const Icon = STEP_ICONS[node.kind];
  const screen = SCREEN_OF[node.kind];
  return (
    <span className="inline-flex flex-wrap items-center gap-2" data-node={`${node.kind}:${node.target}`}>
      <Icon className="size-4 text-muted-foreground" aria-hidden />
      {screen ? (
        <Link to={screen} className="font-medium underline-offset-4 hover:underline">
          {node.label}
        </Link>
      ) : (
        <span className="font-medium">{node.label}</span>
      )}
      {node.missing && <Badge variant="destructive">does not exist</Badge>}
      {node.loop && <Badge variant="warning">loops back</Badge>}
      {node.back && <Badge variant="outline">back to this menu</Badge>}
    </span>
  );
}

function Branches({ node }: { node: FlowNode }) {
  if (node.children.length === 0) return null;
  return (
    <ul className="mt-1 ml-5 grid gap-1 border-l pl-4">
      {node.children.map(({ when, node: child }) => (
        <li key={`${when}:${child.kind}:${child.target}`} className="grid gap-0.5">
          <span className="flex items-center gap-1 text-muted-foreground text-xs">
            <CornerDownRight className="size-3" aria-hidden />
            {when}
          </span>
          <Node node={child} />
          <Branches node={child} />
        </li>
      ))}
    </ul>
  );
}

/** Every inbound route's call flow as a tree: the object it rings, and where calls go on from it and when. */
export function CallFlows() {
  const flows = useQuery(callFlowsQuery());
  return (
    <Card>
      <CardHeader>
        <CardTitle>Call flows</CardTitle>
      </CardHeader>
      <CardContent>
        {flows.data?.length === 0 && (
          <p className="text-muted-foreground text-sm">No inbound route yet: calls from the trunks go nowhere.</p>
        )}
        <ul className="grid gap-4" aria-label="Call flows">
          {flows.data?.map((f, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: two routes may share a DID (one per caller ID)
            <li key={i} className="grid gap-1" data-did={f.did}>
              <span className="font-semibold">{f.label}</span>
              <div className="ml-1">
                <Node node={f.root} />
                <Branches node={f.root} />
              </div>
            </li>
          ))}
        </ul>
      </CardContent>
    </Card>
  );
}
