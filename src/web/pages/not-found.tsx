import { Link } from "@tanstack/react-router";
import { Compass } from "lucide-react";
import { useEffect } from "react";
import { Button } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";

/** Any path not in the route list. */
export function NotFoundPage() {
  useEffect(() => {
    document.title = "Page Not Found · PBX Console";
  }, []);

  return (
    <div className="flex flex-1 items-center justify-center py-12">
      <Card className="w-full max-w-md">
        <CardContent className="flex flex-col items-center gap-4 text-center">
          <div className="flex size-12 items-center justify-center rounded-full bg-muted">
            <Compass className="size-6 text-muted-foreground" />
          </div>
          <div className="flex flex-col gap-1.5">
            <h1 className="text-2xl font-semibold tracking-tight">Page Not Found</h1>
            <p className="text-muted-foreground text-sm">
              Nothing lives at this address. Did you forget to add the page to the router?
            </p>
          </div>
          <Button asChild variant="outline">
            <Link to="/">Back to Dashboard</Link>
          </Button>
        </CardContent>
      </Card>
    </div>
  );
}
