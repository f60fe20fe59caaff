/** What the Provision tab shows: kept until the next Generate. */
export interface GeneratedConfig {
  extension: string;
  name: string;
  link: string;
  qrCode: string;
}
