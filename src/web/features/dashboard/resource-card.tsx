import type { LucideIcon } from "lucide-react";
import type { ReactNode } from "react";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { Progress } from "@/components/ui/progress";
import { Skeleton } from "@/components/ui/skeleton";
import { cn } from "@/lib/utils";
import { USAGE_BAR_CLASS, USAGE_TEXT_CLASS, usageDisplay } from "./thresholds";

/** The frame shared by the four server cards: title and icon, then the body. */
export function StatCard({
  title,
  icon: Icon,
  children,
  testId,
}: {
  title: string;
  icon: LucideIcon;
  children: ReactNode;
  testId?: string;
}) {
  return (
    <Card className="gap-3" data-testid={testId} role="group" aria-label={title}>
      <CardHeader className="flex flex-row items-center justify-between gap-2">
        <CardTitle className="font-medium text-muted-foreground text-sm">{title}</CardTitle>
        <Icon className="size-4 text-muted-foreground" aria-hidden />
      </CardHeader>
      <CardContent className="flex min-h-16 flex-col gap-2">{children}</CardContent>
    </Card>
  );
}

/** Placeholder while /api/vps/status loads. */
export function StatSkeleton() {
  return (
    <>
      <Skeleton className="h-8 w-20" />
      <Skeleton className="h-2 w-full" />
    </>
  );
}

/** Shown instead of numbers when no metrics source is configured: never an invented 0 %. */
export function NotConfigured() {
  return (
    <>
      <div className="font-semibold text-lg text-muted-foreground">Not configured</div>
      <p className="text-muted-foreground text-xs">No metrics source</p>
    </>
  );
}

/** CPU, memory or disk: the percentage (coloured by threshold) and a bar. */
export function UsageValue({ label, percent, caption }: { label: string; percent: number; caption: string | null }) {
  const { text, value, level } = usageDisplay(percent);
  return (
    <>
      <div className={cn("font-bold text-2xl tabular-nums", USAGE_TEXT_CLASS[level])} data-level={level}>
        {text}
      </div>
      <Progress
        value={value}
        aria-label={`${label} ${text}`}
        className={USAGE_BAR_CLASS[level].track}
        indicatorClassName={USAGE_BAR_CLASS[level].bar}
      />
      {caption && <p className="text-muted-foreground text-xs">{caption}</p>}
    </>
  );
}
