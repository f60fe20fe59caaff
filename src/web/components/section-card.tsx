/** A page section as a card: a level-2 heading that names the region, an optional description, the content. */
import { type ReactNode, useId } from "react";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";

export function Section({
  title,
  description,
  testId,
  children,
}: {
  title: string;
  description?: ReactNode;
  testId?: string;
  children: ReactNode;
}) {
  const id = useId();
  return (
    <Card role="region" aria-labelledby={id} className="min-w-0 gap-4 py-4" data-testid={testId}>
      <CardHeader className="px-4 sm:px-6">
        <CardTitle>
          <h2 id={id}>{title}</h2>
        </CardTitle>
        {description && <CardDescription>{description}</CardDescription>}
      </CardHeader>
      <CardContent className="min-w-0 px-4 sm:px-6">{children}</CardContent>
    </Card>
  );
}
