import { useState } from "react";
import { RoleNotice } from "@/components/can";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/components/ui/tabs";
import { useCan } from "@/hooks/use-role";
import type { Extension } from "../../../shared/inventory";
import { ConfigureTab } from "./configure-tab";
import { DialerHint } from "./dialer-hint";
import { ProvisionTab } from "./provision-tab";
import { PttTab } from "./ptt-tab";
import type { GeneratedConfig } from "./types";

type Tab = "configure" | "ptt" | "provision";

/**
 * Configure → Provision: generating switches to the Provision tab with the fresh code. A configuration
 * carries the SIP password, so it is an operator's: a viewer sees only the PTT groups.
 */
export function SoftphoneTabs() {
  const [tab, setTab] = useState<Tab>("configure");
  const [selected, setSelected] = useState<Extension | null>(null);
  const [generated, setGenerated] = useState<GeneratedConfig | null>(null);

  if (!useCan("operator")) {
    return (
      <>
        <RoleNotice cannot="see or provision a softphone configuration: it contains the extension's SIP password" />
        <DialerHint />
        <PttTab extension={null} />
      </>
    );
  }

  return (
    <Tabs value={tab} onValueChange={(v) => setTab(v as Tab)}>
      <DialerHint />
      <TabsList className="w-full sm:w-fit">
        <TabsTrigger value="configure">Configure</TabsTrigger>
        <TabsTrigger value="ptt">PTT/Paging</TabsTrigger>
        <TabsTrigger value="provision">Provision</TabsTrigger>
      </TabsList>
      <TabsContent value="configure">
        <ConfigureTab
          selected={selected}
          onSelect={setSelected}
          onGenerated={(config) => {
            setGenerated(config);
            setTab("provision");
          }}
        />
      </TabsContent>
      <TabsContent value="ptt">
        <PttTab extension={selected?.extension ?? null} />
      </TabsContent>
      <TabsContent value="provision">
        <ProvisionTab generated={generated} onConfigure={() => setTab("configure")} onGenerated={setGenerated} />
      </TabsContent>
    </Tabs>
  );
}
