/** QR codes as PNG data URLs (softphone provisioning links, authenticator enrolment). */
import QRCode from "qrcode";

export const qrDataUrl = (text: string) => QRCode.toDataURL(text, { errorCorrectionLevel: "M", margin: 2, width: 320 });
