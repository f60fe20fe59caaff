import { ScreenHeader } from "@/components/list-kit";
import { CallFlows } from "@/features/routing/call-flows";
import { RoutingSimulator } from "@/features/routing/simulator";
import { PbxTimeConditionsCard } from "@/features/routing/time-conditions";

export function CallRoutingPage() {
  return (
    <>
      <ScreenHeader
        title="Call Routing"
        subtitle="Where a call goes: from the trunk through the inbound route to the phones that ring, step by step"
      />
      <div className="grid gap-6">
        <RoutingSimulator />
        <CallFlows />
        <PbxTimeConditionsCard />
      </div>
    </>
  );
}
