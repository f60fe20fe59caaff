import type { LucideIcon } from "lucide-react";
import type { ReactNode } from "react";
import { Card, CardContent } from "@/components/ui/card";
import { useCan } from "@/hooks/use-role";

/**
 * The empty state of a list screen: icon, title, one line, optional action. When `description` invites
 * the user to create something, `viewerDescription` is the line for a role that cannot (a viewer).
 */
export function EmptyState({
  icon: Icon,
  title,
  description: writerDescription,
  viewerDescription,
  action,
}: {
  icon: LucideIcon;
  title: string;
  description?: string;
  viewerDescription?: string;
  action?: ReactNode;
}) {
  const canWrite = useCan("operator");
  const description = !canWrite && viewerDescription !== undefined ? viewerDescription : writerDescription;
  return (
    <Card>
      <CardContent className="flex flex-col items-center justify-center gap-3 py-12 text-center">
        <Icon className="size-10 text-muted-foreground" aria-hidden />
        <h3 className="font-semibold text-lg">{title}</h3>
        {description && <p className="text-muted-foreground text-sm">{description}</p>}
        {action}
      </CardContent>
    </Card>
  );
}
