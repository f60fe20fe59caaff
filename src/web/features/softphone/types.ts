import type { ProvisioningLink } from "../../../shared/provisioning";

/** What the Provision tab shows: the last link issued, kept until the next one. */
export interface GeneratedConfig {
  extensionId: number;
  extension: string;
  name: string;
  link: ProvisioningLink;
}
