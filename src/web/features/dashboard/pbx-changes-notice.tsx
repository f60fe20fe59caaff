import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { TriangleAlert } from "lucide-react";
import { Can } from "@/components/can";
import { pbxStatusQuery } from "@/features/deployment/api";

/**
 * FreePBX's "Apply Config" flag (`admin.need_reload`, read over SSH by GET /api/deploy/status): shown
 * only while FreePBX holds changes it has not applied. Nothing when it is up to date or cannot be read
 * (the Deployment page's PBX status says why).
 */
export function PbxChangesNotice() {
  const status = useQuery(pbxStatusQuery());
  if (status.data?.needReload !== true) return null;
  return (
    <div
      role="status"
      aria-label="Unapplied PBX changes"
      data-testid="pbx-changes-notice"
      className="flex flex-col gap-3 rounded-lg border border-warning/50 bg-warning/10 px-4 py-3 text-sm sm:flex-row sm:items-center sm:justify-between"
    >
      <div className="flex items-start gap-2">
        <TriangleAlert className="mt-0.5 size-4 shrink-0 text-warning" aria-hidden />
        <p>
          <span className="font-medium">FreePBX has changes that are not applied yet. </span>
          <span className="text-muted-foreground">
            They are saved in its database, but phones and trunks keep the running configuration until FreePBX reloads:
            use Apply Config in FreePBX, run fwconsole reload on the PBX host, or deploy again (a deploy ends with a
            reload). If a reload failed, its reason is in the deployment's results.
          </span>
        </p>
      </div>
      <Can minRole="operator">
        <Link to="/deployment" className="shrink-0 font-medium text-primary text-sm underline-offset-4 hover:underline">
          Open Deployment
        </Link>
      </Can>
    </div>
  );
}
