/**
 * QR codes as PNG data URLs (softphone provisioning links, authenticator enrolment). `qrcode` is loaded at
 * the first code, not at start (ADR 0034).
 */
export const qrDataUrl = async (text: string) => {
  const { default: QRCode } = await import("qrcode");
  return QRCode.toDataURL(text, { errorCorrectionLevel: "M", margin: 2, width: 320 });
};
