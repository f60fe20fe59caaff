import { CloudUpload, LoaderCircle } from "lucide-react";
import { Button } from "@/components/ui/button";
import { DIALER_SERVICE, usePushAll } from "./api";

/** Pushes every extension config to the web dialer's cloud service. */
export function PushButton() {
  const push = usePushAll();
  return (
    <Button variant="outline" disabled={push.isPending} onClick={() => push.mutate()}>
      {push.isPending ? <LoaderCircle className="animate-spin" /> : <CloudUpload />}
      Push to {DIALER_SERVICE}
    </Button>
  );
}
