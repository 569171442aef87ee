type QrCodeLibrary = typeof import('qrcode');

let qrcode: QrCodeLibrary | undefined;

/**
 * qrcode is loaded by the first enrolment, not with the package: a host whose users never switch the second factor
 * on never loads it (as bowser for the sessions list).
 */
function library(): QrCodeLibrary {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use on purpose (see above)
  return (qrcode ??= require('qrcode') as QrCodeLibrary);
}

/**
 * An `otpauth://` URI as a QR code, a standalone SVG document for an `<img>` or inline markup. Error correction M
 * (15 %) keeps the code small enough for a phone camera at the URI's length; the margin is the 4 modules the QR
 * specification asks for, so a scanner finds it on any background.
 */
export function qrCodeSvg(text: string): Promise<string> {
  return library().toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 });
}
