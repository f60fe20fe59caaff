import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { CloudUpload, LoaderCircle } from "lucide-react";
import { Button } from "@/components/ui/button";
import { toast } from "@/components/ui/use-toast";
import { errorMessage } from "@/lib/error-text";
import { DIALER_SERVICE, dialerStatusQuery, usePushAll } from "./api";

/** The hint shown instead of a push (or a failure) while the web dialer is not set up: a quiet state. */
export function DialerNotConfigured() {
  return (
    <p className="text-muted-foreground text-sm" role="note">
      Web dialer not configured — set it up in{" "}
      <Link to="/settings" className="underline underline-offset-2">
        API Settings
      </Link>
      .
    </p>
  );
}

/** Pushes every extension config to the web dialer's cloud service; nothing while it is not configured (the screen shows `DialerHint`). */
export function PushButton() {
  const status = useQuery(dialerStatusQuery());
  const push = usePushAll({
    onSuccess: (count) =>
      toast({
        title: `Synced to ${DIALER_SERVICE}`,
        description: `${count ?? "All"} extension configs pushed to the cloud for web dialer`,
      }),
    onError: (err) =>
      toast({
        variant: "destructive",
        title: `Failed to sync extensions to ${DIALER_SERVICE}`,
        description: errorMessage(err),
      }),
  });
  if (status.data && !status.data.configured) return null;
  return (
    <Button variant="outline" disabled={push.isPending} onClick={() => push.mutate()}>
      {push.isPending ? <LoaderCircle className="animate-spin" /> : <CloudUpload />}
      Push to {DIALER_SERVICE}
    </Button>
  );
}
