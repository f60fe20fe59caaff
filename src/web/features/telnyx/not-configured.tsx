import { Link } from "@tanstack/react-router";
import { Settings } from "lucide-react";
import { Can } from "@/components/can";
import { Button } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";

/** The provider answered "not configured": say so and point at API Settings instead of empty lists. */
export function NotConfigured({ message }: { message: string }) {
  return (
    <Card role="region" aria-label="Telnyx not configured">
      <CardContent className="flex flex-col items-center gap-3 py-10 text-center">
        <Settings className="size-10 text-muted-foreground" aria-hidden />
        <p className="max-w-xl text-sm" data-testid="telnyx-not-configured">
          {message}
        </p>
        {/* Credentials are an administrator's. */}
        <Can minRole="admin">
          <Button asChild>
            <Link to="/settings">Open API Settings</Link>
          </Button>
        </Can>
      </CardContent>
    </Card>
  );
}
