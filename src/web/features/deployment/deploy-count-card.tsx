import { LoaderCircle, type LucideIcon, Upload } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardFooter, CardHeader, CardTitle } from "@/components/ui/card";
import { useCan } from "@/hooks/use-role";
import { formatNumber } from "@/lib/format";

/**
 * A count from the list query with its deploy button (disabled while any deploy runs or with nothing to
 * deploy; not shown to a role that cannot deploy).
 */
export function DeployCountCard({
  title,
  caption,
  icon: Icon,
  count,
  buttonLabel,
  busy,
  pending,
  onDeploy,
}: {
  title: string;
  caption: string;
  icon: LucideIcon;
  /** undefined while the list loads. */
  count: number | undefined;
  buttonLabel: string;
  /** This card's deploy is the one running. */
  busy: boolean;
  /** Any deploy is running. */
  pending: boolean;
  onDeploy: () => void;
}) {
  const canDeploy = useCan("operator");
  return (
    <Card className="gap-4" role="group" aria-label={title} data-testid={`deploy-${title}`}>
      <CardHeader className="flex flex-row items-center justify-between gap-2">
        <CardTitle className="font-medium text-muted-foreground text-sm">{title}</CardTitle>
        <Icon className="size-4 text-muted-foreground" aria-hidden />
      </CardHeader>
      <CardContent>
        <div className="font-bold text-2xl tabular-nums" data-testid="count-value">
          {count === undefined ? "..." : formatNumber(count)}
        </div>
        <p className="text-muted-foreground text-xs">{caption}</p>
      </CardContent>
      {canDeploy && (
        <CardFooter>
          <Button className="w-full" variant="outline" disabled={pending || !count} onClick={onDeploy}>
            {busy ? <LoaderCircle className="animate-spin" /> : <Upload />}
            {buttonLabel}
          </Button>
        </CardFooter>
      )}
    </Card>
  );
}
