/** What the Provision tab shows: kept until the next Generate (spec section 4). */
export interface GeneratedConfig {
  extension: string;
  name: string;
  link: string;
  qrCode: string;
}
