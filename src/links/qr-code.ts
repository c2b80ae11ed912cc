import QRCode from 'qrcode';

/**
 * The QR code of a short URL as an SVG document: error correction level M (readable with 15 %
 * of it damaged or covered, enough for print) and the standard 4-module quiet zone. Colours
 * are attributes, not inline styles, so pages with a strict CSP can embed it.
 */
export function qrCodeSvg(shortUrl: string): Promise<string> {
  return QRCode.toString(shortUrl, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 });
}
