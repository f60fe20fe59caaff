/** How the SIP provider screen writes dates. */
export const formatDate = (iso: string) => new Date(iso).toLocaleDateString("en-US");
export const formatDateTime = (iso: string) => new Date(iso).toLocaleString("en-US");
