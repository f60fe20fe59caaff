import { useQuery } from "@tanstack/react-query";
import { Bot, Plus } from "lucide-react";
import { useState } from "react";
import { Can } from "@/components/can";
import { EmptyState } from "@/components/empty-state";
import { ListBody, ScreenHeader } from "@/components/list-kit";
import { Button } from "@/components/ui/button";
import { assistantsQuery, useDeleteAssistant } from "@/features/ai/api";
import { AssistantCard } from "@/features/ai/assistant-card";
import { AssistantDialog } from "@/features/ai/assistant-dialog";
import { PricesCard } from "@/features/ai/prices-card";
import { RecentCallsCard, SipConnectorCard } from "@/features/ai/sip-connector-card";
import { undoableDeleteToasts } from "@/features/safe-delete/undo-toast";
import { runningFor } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import type { AiAssistant } from "../../shared/ai/assistants";

export function AiAssistantsPage() {
  const assistants = useQuery(assistantsQuery());
  const [dialog, setDialog] = useState<{ open: boolean; editing: AiAssistant | null }>({ open: false, editing: null });
  const del = useDeleteAssistant(
    undoableDeleteToasts("AI assistant deleted successfully", "Failed to delete assistant", [queryKeys.aiAssistants]),
  );

  return (
    <>
      <ScreenHeader
        title="AI Assistants"
        subtitle="Voice assistants that answer and handle calls"
        action={
          <Can minRole="operator">
            <Button onClick={() => setDialog({ open: true, editing: null })}>
              <Plus />
              Create Assistant
            </Button>
          </Can>
        }
      />
      <SipConnectorCard />
      <ListBody
        query={assistants}
        layout="grid"
        label="AI assistants"
        empty={
          <EmptyState
            icon={Bot}
            title="No AI Assistants"
            description="Create an assistant to answer calls with OpenAI's realtime voice."
            viewerDescription="No assistant answers calls with OpenAI's realtime voice yet."
          />
        }
      >
        {(items) =>
          items.map((a) => (
            <AssistantCard
              key={a.id}
              assistant={a}
              deleting={runningFor(del, a.id)}
              onEdit={() => setDialog({ open: true, editing: a })}
              onDelete={() => del.mutateAsync(a.id)}
            />
          ))
        }
      </ListBody>
      <RecentCallsCard />
      <PricesCard />
      <AssistantDialog
        open={dialog.open}
        editing={dialog.editing}
        onClose={() => setDialog((d) => ({ ...d, open: false }))}
      />
    </>
  );
}
