import { useVirtualizer } from "@tanstack/react-virtual";
import { Copy, Download, FileCode } from "lucide-react";
import { useMemo, useRef } from "react";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/components/ui/tabs";
import { toast } from "@/components/ui/use-toast";
import { copyText } from "@/lib/clipboard";
import { fetchScript, SCRIPT_URL } from "./api";
import { downloadUrl, scriptFileName } from "./file-actions";
import type { GeneratedConfig } from "./types";

/** The SQL viewer has a fixed height and scrolls. */
const VIEWER_HEIGHT = "h-[500px]";
/** One statement per line (the server escapes line breaks inside values); every line this high. */
const LINE_PX = 20;
const PADDING_PX = 16;

interface SqlTab {
  value: string;
  label: string;
  lines: string[];
  empty: string;
}

function tabsOf(config: GeneratedConfig): SqlTab[] {
  const {
    trunks,
    extensions,
    outboundRoutes,
    inboundRoutes,
    pttGroups = [],
    ringGroups = [],
    queues = [],
    announcements = [],
    ivrs = [],
    destinations = [],
  } = config.sql;
  // The IVRs' tab holds the announcements too, and the destinations to them that come after every object.
  const callFlows = [...announcements, ...ivrs, ...destinations];
  return [
    {
      value: "all",
      label: "All",
      lines: [
        ...trunks,
        ...extensions,
        ...ringGroups,
        ...queues,
        ...announcements,
        ...ivrs,
        ...outboundRoutes,
        ...inboundRoutes,
        ...pttGroups,
        ...destinations,
      ],
      empty: "-- Nothing to deploy",
    },
    { value: "trunks", label: "Trunks", lines: trunks, empty: "-- No trunks to deploy" },
    { value: "extensions", label: "Extensions", lines: extensions, empty: "-- No extensions to deploy" },
    { value: "ring-groups", label: "Ring Groups", lines: ringGroups, empty: "-- No ring groups to deploy" },
    { value: "queues", label: "Queues", lines: queues, empty: "-- No queues to deploy" },
    { value: "ivrs", label: "IVRs", lines: callFlows, empty: "-- No IVRs or announcements to deploy" },
    { value: "outbound", label: "Outbound", lines: outboundRoutes, empty: "-- No outbound routes to deploy" },
    { value: "inbound", label: "Inbound", lines: inboundRoutes, empty: "-- No inbound routes to deploy" },
    { value: "page-groups", label: "Page Groups", lines: pttGroups, empty: "-- No PTT (page) groups to deploy" },
  ];
}

/** The statements, one per line, rendered virtually: only the lines in view (and a few more) are in the page. */
function SqlLines({ label, lines }: { label: string; lines: string[] }) {
  const scroller = useRef<HTMLElement>(null);
  const virtual = useVirtualizer({
    count: lines.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => LINE_PX,
    overscan: 20,
    paddingStart: PADDING_PX,
    paddingEnd: PADDING_PX,
  });
  return (
    <section
      ref={scroller}
      aria-label={`SQL: ${label}`}
      // The script can be long: a scroll region must be reachable by keyboard.
      // biome-ignore lint/a11y/noNoninteractiveTabindex: see above
      tabIndex={0}
      data-testid="sql-viewer"
      data-lines={lines.length}
      className={`${VIEWER_HEIGHT} overflow-auto rounded-md border bg-muted/40 outline-none focus-visible:ring-[3px] focus-visible:ring-ring/50`}
    >
      <div className="relative min-w-full font-mono text-xs" style={{ height: virtual.getTotalSize() }}>
        {virtual.getVirtualItems().map((row) => (
          <div
            key={row.key}
            className="absolute top-0 left-0 whitespace-pre px-4"
            style={{ height: LINE_PX, lineHeight: `${LINE_PX}px`, transform: `translateY(${row.start}px)` }}
          >
            {lines[row.index]}
          </div>
        ))}
      </div>
    </section>
  );
}

/** Tabs All / Trunks / Extensions / Outbound / Inbound / Page Groups, with Download and Copy of the full script. */
export function SqlViewer({ config }: { config: GeneratedConfig }) {
  const tabs = useMemo(() => tabsOf(config), [config]);

  const download = () => {
    // The server streams the script as an attachment; the browser writes it to the file as it comes.
    downloadUrl(SCRIPT_URL, scriptFileName());
    toast({ title: "Downloaded!", description: "The SQL script is being saved as a .sql file." });
  };

  const copy = async () => {
    try {
      await copyText(await fetchScript());
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
          <CardDescription>
            The statements per kind. Download or Copy gives the whole script: one transaction for the FreePBX database,
            safe to run more than once.
          </CardDescription>
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
              <SqlLines label={t.label} lines={t.lines.length ? t.lines : [t.empty]} />
            </TabsContent>
          ))}
        </Tabs>
      </CardContent>
    </Card>
  );
}
