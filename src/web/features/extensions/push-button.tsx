import { CloudUpload, LoaderCircle } from "lucide-react";
import { Button } from "@/components/ui/button";
import { toast } from "@/components/ui/use-toast";
import { errorMessage } from "@/lib/error-text";
import { DIALER_SERVICE, usePushAll } from "./api";

/** Pushes every extension config to the web dialer's cloud service. */
export function PushButton() {
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
  return (
    <Button variant="outline" disabled={push.isPending} onClick={() => push.mutate()}>
      {push.isPending ? <LoaderCircle className="animate-spin" /> : <CloudUpload />}
      Push to {DIALER_SERVICE}
    </Button>
  );
}
