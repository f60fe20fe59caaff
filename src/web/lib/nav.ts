/** The sidebar's screens, in order. The router has one route per entry. */
import type { RegisteredRouter } from "@tanstack/react-router";
import {
  Activity,
  AudioLines,
  BellRing,
  Bot,
  Boxes,
  Cable,
  Clock,
  FileAudio,
  FileCode,
  Grid3x3,
  History,
  KeyRound,
  LayoutDashboard,
  ListOrdered,
  type LucideIcon,
  Megaphone,
  MessageSquareText,
  Network,
  Phone,
  PhoneCall,
  PhoneIncoming,
  PhoneOutgoing,
  Radio,
  RefreshCw,
  Rocket,
  ScrollText,
  Server,
  ShieldAlert,
  Signpost,
  Smartphone,
  Users,
  Voicemail,
  WandSparkles,
  Workflow,
} from "lucide-react";
import { type Role, roleAllows } from "../../shared/roles";

/** A path the router knows (checked at compile time). */
export type AppPath = keyof RegisteredRouter["routesByPath"];

export interface NavItem {
  title: string;
  url: AppPath;
  icon: LucideIcon;
  /** Shown only to users with at least this role (the server refuses the rest anyway). */
  minRole?: Role;
}

export interface NavGroup {
  label: string;
  items: NavItem[];
}

export const NAV_GROUPS: NavGroup[] = [
  {
    label: "Management",
    items: [
      { title: "Dashboard", url: "/", icon: LayoutDashboard },
      { title: "VPS Management", url: "/vps", icon: Server },
      { title: "Extensions", url: "/extensions", icon: Phone },
      { title: "Trunks", url: "/trunks", icon: Network },
      { title: "Inbound Routes", url: "/inbound-routes", icon: PhoneIncoming },
      { title: "Outbound Routes", url: "/outbound-routes", icon: PhoneOutgoing },
      { title: "Ring Groups", url: "/ring-groups", icon: PhoneCall },
      { title: "Queues", url: "/queues", icon: ListOrdered },
      { title: "IVRs", url: "/ivrs", icon: Grid3x3 },
      { title: "Announcements", url: "/announcements", icon: Megaphone },
      { title: "Time Conditions", url: "/time-conditions", icon: Clock },
      { title: "Call Routing", url: "/call-routing", icon: Signpost },
      { title: "System Recordings", url: "/recordings", icon: FileAudio },
      { title: "PTT Groups", url: "/ptt-groups", icon: Radio },
      { title: "Softphone", url: "/sangoma-talk", icon: Smartphone },
      { title: "Configuration Wizard", url: "/wizard", icon: WandSparkles },
      { title: "Config Generator", url: "/config-generator", icon: FileCode },
      { title: "Deployment", url: "/deployment", icon: Rocket },
      { title: "Sync from PBX", url: "/sync", icon: RefreshCw },
      { title: "API Settings", url: "/settings", icon: KeyRound },
      { title: "SIP Provider", url: "/telnyx", icon: Cable },
      { title: "Alerts", url: "/alerts", icon: BellRing },
      { title: "Users", url: "/users", icon: Users, minRole: "admin" },
      { title: "Audit", url: "/audit", icon: ScrollText, minRole: "admin" },
      { title: "Fleet", url: "/fleet", icon: Boxes, minRole: "admin" },
    ],
  },
  {
    label: "Live PBX",
    items: [
      { title: "Active Calls", url: "/calls", icon: PhoneCall },
      { title: "Call History", url: "/call-history", icon: History },
      { title: "Voicemail", url: "/voicemail", icon: Voicemail },
      { title: "PBX Security", url: "/pbx-security", icon: ShieldAlert },
      { title: "Test Calls", url: "/test-calls", icon: Activity },
    ],
  },
  {
    label: "AI Voice",
    items: [
      { title: "AI Assistants", url: "/ai-assistants", icon: Bot },
      { title: "Live AI Calls", url: "/ai-live-calls", icon: AudioLines },
      { title: "Messages", url: "/ai-messages", icon: Voicemail },
      { title: "Call Transcripts", url: "/call-transcripts", icon: MessageSquareText },
      { title: "Routing Rules", url: "/ai-routing", icon: Workflow },
    ],
  },
];

export const NAV_ITEMS: NavItem[] = NAV_GROUPS.flatMap((g) => g.items);

/** Pages that are not in the sidebar but belong to a screen that is: a call's detail to Call History, an AI call's to AI Assistants. */
const SUB_PAGES: ReadonlyArray<readonly [RegExp, string]> = [
  [/^\/call-history\/[^/]+$/, "/call-history"],
  [/^\/ai\/calls\/[^/]+$/, "/ai-assistants"],
];

/** The sidebar entry of a path: its screen, or the screen a sub-page (a call's detail) belongs to. */
export function navItemFor(pathname: string): NavItem | undefined {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, "") : pathname;
  const url = SUB_PAGES.find(([re]) => re.test(path))?.[1] ?? path;
  return NAV_ITEMS.find((item) => item.url === url);
}

/** The sidebar groups a user of `role` sees (null: not known yet, only the entries every role has). */
export function navGroupsFor(role: Role | null): NavGroup[] {
  const visible = (item: NavItem) => !item.minRole || (role !== null && roleAllows(role, item.minRole));
  return NAV_GROUPS.map((g) => ({ ...g, items: g.items.filter(visible) })).filter((g) => g.items.length > 0);
}
