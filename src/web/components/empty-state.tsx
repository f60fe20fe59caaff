import type { LucideIcon } from "lucide-react";
import type { ReactNode } from "react";
import { Card, CardContent } from "@/components/ui/card";

/** The empty state of a list screen: icon, title, one line, optional action. */
export function EmptyState({
  icon: Icon,
  title,
  description,
  action,
}: {
  icon: LucideIcon;
  title: string;
  description?: string;
  action?: ReactNode;
}) {
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
