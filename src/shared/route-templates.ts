/** Outbound route templates offered by the Outbound Routes screen, with their dial patterns (docs/product). */
export interface RouteTemplate {
  id: "uk" | "il" | "us" | "intl" | "custom";
  label: string;
  /** The route name the template fills in ("" for Custom). */
  name: string;
  patterns: string[];
}

const UK = ["0[123456789]XXXXXXXXX", "07XXXXXXXXX", "+44XXXXXXXXXX"];
const IL = ["0[234589]XXXXXXX", "05XXXXXXXX", "+972XXXXXXXXX"];
const US = ["1NXXNXXXXXX", "+1NXXNXXXXXX"];

export const ROUTE_TEMPLATES: RouteTemplate[] = [
  { id: "uk", label: "UK Calling", name: "UK Calling", patterns: UK },
  { id: "il", label: "Israel Calling", name: "Israel Calling", patterns: IL },
  { id: "us", label: "USA Calling", name: "USA Calling", patterns: US },
  { id: "intl", label: "International Combined", name: "International Combined", patterns: [...UK, ...IL, ...US] },
  { id: "custom", label: "Custom Route", name: "", patterns: [] },
];
