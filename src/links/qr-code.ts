/**
 * qrcode, loaded when the first QR code is drawn: most processes (redirects, the API) never draw
 * one, and the library costs about 1 MiB of heap and 8 MiB of RSS once loaded.
 */
let qrcode: Promise<typeof import('qrcode')> | undefined;

/**
 * The QR code of a short URL as an SVG document: error correction level M (readable with 15 %
 * of it damaged or covered, enough for print) and the standard 4-module quiet zone. Colours
 * are attributes, not inline styles, so pages with a strict CSP can embed it.
 */
export async function qrCodeSvg(shortUrl: string): Promise<string> {
  const QRCode = await (qrcode ??= import('qrcode'));
  return QRCode.toString(shortUrl, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 });
}
