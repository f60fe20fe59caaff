import { Bot } from "lucide-react";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { queryKeys } from "@/lib/query-keys";
import type { AiAssistant } from "../../../shared/ai/assistants";
import { AssistantStatsView } from "./assistant-stats";
import { EditDeleteFooter, Fact } from "./card-parts";
import { modelLabel, voiceLabel } from "./format";
import { TestBenchButton } from "./test-bench";
import { TestScriptsButton } from "./test-scripts";

export function AssistantCard({
  assistant: a,
  deleting,
  onEdit,
  onDelete,
}: {
  assistant: AiAssistant;
  deleting: boolean;
  onEdit: () => void;
  onDelete: () => Promise<unknown>;
}) {
  return (
    <li>
      <Card className="h-full gap-4">
        <CardHeader className="flex items-start justify-between gap-2">
          <div className="grid min-w-0 gap-1">
            <CardTitle className="flex items-center gap-2 leading-normal">
              <Bot className="size-4 shrink-0 text-muted-foreground" aria-hidden />
              <span className="truncate">{a.name}</span>
            </CardTitle>
            {a.description && <CardDescription className="line-clamp-2">{a.description}</CardDescription>}
          </div>
          <Badge variant={a.status === "active" ? "success" : "secondary"}>
            {a.status === "active" ? "Active" : "Inactive"}
          </Badge>
        </CardHeader>
        <CardContent className="grid gap-4">
          <dl className="grid gap-1.5">
            <Fact term="Model">{modelLabel(a.model)}</Fact>
            <Fact term="Voice">{voiceLabel(a.voice)}</Fact>
            <Fact term="Extension">{a.extensionId ?? "—"}</Fact>
            <Fact term="IVR">{a.ivrId ?? "—"}</Fact>
          </dl>
          <div className="flex flex-wrap gap-2">
            <TestBenchButton assistant={a} />
            <TestScriptsButton assistant={a} />
          </div>
          <AssistantStatsView assistant={a} />
        </CardContent>
        <EditDeleteFooter
          name={a.name}
          deleting={deleting}
          onEdit={onEdit}
          onDelete={onDelete}
          confirm={{ what: "AI assistant", list: queryKeys.aiAssistants, id: a.id }}
          className="mt-auto"
        />
      </Card>
    </li>
  );
}
