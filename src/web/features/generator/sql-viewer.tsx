import { Copy, Download, FileCode } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/components/ui/tabs";
import { toast } from "@/components/ui/use-toast";
import { copyText } from "@/lib/clipboard";
import { downloadText, scriptFileName } from "./file-actions";
import type { GeneratedConfig } from "./types";

/** The SQL viewer has a fixed height and scrolls. */
const VIEWER_HEIGHT = "h-[500px]";

interface SqlTab {
  value: string;
  label: string;
  text: string;
  empty: string;
}

function tabsOf(config: GeneratedConfig): SqlTab[] {
  const join = (statements: string[] | undefined) => (statements ?? []).join("\n");
  return [
    { value: "all", label: "All", text: config.deployment.script, empty: "" },
    { value: "trunks", label: "Trunks", text: join(config.sql.trunks), empty: "-- No trunks to deploy" },
    {
      value: "extensions",
      label: "Extensions",
      text: join(config.sql.extensions),
      empty: "-- No extensions to deploy",
    },
    {
      value: "outbound",
      label: "Outbound",
      text: join(config.sql.outboundRoutes),
      empty: "-- No outbound routes to deploy",
    },
    {
      value: "inbound",
      label: "Inbound",
      text: join(config.sql.inboundRoutes),
      empty: "-- No inbound routes to deploy",
    },
    {
      value: "page-groups",
      label: "Page Groups",
      text: join(config.sql.pttGroups),
      empty: "-- No PTT (page) groups to deploy",
    },
  ];
}

function SqlText({ label, text }: { label: string; text: string }) {
  return (
    <section
      aria-label={`SQL: ${label}`}
      // The script can be long: a scroll region must be reachable by keyboard.
      // biome-ignore lint/a11y/noNoninteractiveTabindex: see above
      tabIndex={0}
      data-testid="sql-viewer"
      className={`${VIEWER_HEIGHT} overflow-auto rounded-md border bg-muted/40 outline-none focus-visible:ring-[3px] focus-visible:ring-ring/50`}
    >
      <pre className="w-fit min-w-full whitespace-pre p-4 font-mono text-xs leading-relaxed">{text}</pre>
    </section>
  );
}

/** Tabs All / Trunks / Extensions / Outbound / Inbound / Page Groups, with Download and Copy of the full script. */
export function SqlViewer({ config }: { config: GeneratedConfig }) {
  const script = config.deployment.script;
  const tabs = tabsOf(config);

  const download = () => {
    downloadText(script, scriptFileName());
    toast({ title: "Downloaded!", description: "The SQL script was saved as a .sql file." });
  };

  const copy = async () => {
    try {
      await copyText(script);
      toast({ title: "Copied!", description: "The SQL script is on the clipboard." });
    } catch (err) {
      toast({
        title: "Copy failed",
        description: err instanceof Error ? err.message : String(err),
        variant: "destructive",
      });
    }
  };

  return (
    <Card role="region" aria-labelledby="sql-title" className="min-w-0 gap-4">
      <CardHeader className="flex flex-wrap items-start justify-between gap-3">
        <div className="grid gap-1.5">
          <CardTitle id="sql-title" className="flex items-center gap-2">
            <FileCode className="size-4 text-muted-foreground" aria-hidden />
            SQL Script
          </CardTitle>
          <CardDescription>One transaction for the FreePBX database; safe to run more than once.</CardDescription>
        </div>
        <div className="flex flex-wrap gap-2">
          <Button variant="outline" onClick={download}>
            <Download />
            Download
          </Button>
          <Button variant="outline" onClick={copy}>
            <Copy />
            Copy
          </Button>
        </div>
      </CardHeader>
      <CardContent>
        <Tabs defaultValue="all">
          <TabsList className="h-auto w-full flex-wrap justify-start sm:w-fit">
            {tabs.map((t) => (
              <TabsTrigger key={t.value} value={t.value}>
                {t.label}
              </TabsTrigger>
            ))}
          </TabsList>
          {tabs.map((t) => (
            <TabsContent key={t.value} value={t.value}>
              <SqlText label={t.label} text={t.text || t.empty} />
            </TabsContent>
          ))}
        </Tabs>
      </CardContent>
    </Card>
  );
}
