/**
 * The QR encoder of the `qrcode` package on its own (matrix only). Importing the package root also bundles its
 * PNG, SVG and terminal renderers, which the certificate worker never uses (bundle budget, docs/benchmarks.md).
 */
declare module 'qrcode/lib/core/qrcode.js' {
  import type { QRCode, QRCodeOptions } from 'qrcode';

  export function create(text: string, options?: QRCodeOptions): QRCode;
}
