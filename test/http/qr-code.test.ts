import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { qrCodeSvg } from '../../src/http/qr-code';

const ROOT = resolve(__dirname, '../../..');

/** Whether `require(specifier)`, in a fresh process, loads the qrcode package. */
function loadsQrCode(specifier: string): boolean {
  const script = `
    require(${JSON.stringify(specifier)});
    process.stdout.write(String(Object.keys(require.cache).some((file) => file.includes('/node_modules/qrcode/'))));`;
  return execFileSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' }) === 'true';
}

describe('the QR code of an enrolment', () => {
  it('is a standalone SVG document of the URI', async () => {
    const svg = await qrCodeSvg('otpauth://totp/Gatehouse:alice?secret=JBSWY3DPEHPK3PXP&issuer=Gatehouse');
    expect(svg).to.match(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(svg)
      .to.contain('<path')
      .and.match(/<\/svg>\s*$/);
    // Nothing of the secret in clear: the picture holds it, not the markup.
    expect(svg).to.not.contain('JBSWY3DPEHPK3PXP');
  });

  it('qrcode is loaded by the first enrolment, not with the package', () => {
    expect(loadsQrCode('gatehouse')).to.equal(false);
    expect(loadsQrCode('gatehouse/express')).to.equal(false);
  });
});
