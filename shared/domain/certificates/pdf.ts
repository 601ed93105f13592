import { PDFDocument, rgb, StandardFonts, type PDFFont, type PDFPage, type RGB } from 'pdf-lib';
import { create as createQr } from 'qrcode/lib/core/qrcode.js';
import type { CertificateField, CertificateMetadata, PillTone } from './content.js';
import { formatInstant } from './content.js';

/** Everything printed on a certificate. */
export interface CertificateDocument {
  certificateId: string;
  firmName: string;
  firmFrnNumber: string;
  issuedAt: string;
  verificationUrl: string;
  metadata: CertificateMetadata;
  record: {
    id: string;
    sequenceNumber: number;
    timestamp: string;
    previousHash: string | null;
    recordHash: string;
    chainHash: string;
    signature: string;
  };
  keyFingerprint: string;
}

// A4 in points, with 50 pt margins.
const PAGE = { width: 595.28, height: 841.89 };
const MARGIN = 50;
const CONTENT_WIDTH = PAGE.width - 2 * MARGIN;
const LABEL_WIDTH = 150;
const VALUE_X = MARGIN + LABEL_WIDTH + 10;
const VALUE_WIDTH = PAGE.width - MARGIN - VALUE_X;
const FOOTER_TOP = 58;

const INK = rgb(0.12, 0.14, 0.18);
const MUTED = rgb(0.38, 0.41, 0.47);
const NAVY = rgb(0.07, 0.19, 0.35);
const RULE = rgb(0.8, 0.82, 0.86);
const PANEL = rgb(0.96, 0.97, 0.98);
const WHITE = rgb(1, 1, 1);
const TONES: Record<PillTone, RGB> = {
  positive: rgb(0.09, 0.45, 0.24),
  caution: rgb(0.66, 0.42, 0.02),
  negative: rgb(0.7, 0.13, 0.13),
  neutral: rgb(0.33, 0.36, 0.42),
};

interface Fonts {
  regular: PDFFont;
  bold: PDFFont;
  serif: PDFFont;
  mono: PDFFont;
}

/**
 * Renders a certificate as an A4 PDF with pdf-lib's standard fonts (nothing to embed, so small and
 * deterministic: the same input always gives the same bytes, which makes a re-generation after a crash
 * converge on the object already stored). Text outside the standard fonts' WinAnsi set prints as '?'.
 */
export async function renderCertificatePdf(doc: CertificateDocument): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const issued = new Date(doc.issuedAt);
  pdf.setTitle(`Ledger certificate ${doc.certificateId}`);
  pdf.setSubject(`${doc.metadata.eventLabel}: ${doc.firmName}, ledger record ${doc.record.id}`);
  pdf.setAuthor('Governance Ledger Service');
  pdf.setCreator('Governance Ledger Service');
  pdf.setProducer('Governance Ledger Service (pdf-lib)');
  pdf.setKeywords([doc.certificateId, doc.record.id, doc.record.recordHash]);
  pdf.setCreationDate(issued);
  pdf.setModificationDate(issued);
  pdf.setLanguage('en-GB');
  const fonts: Fonts = {
    regular: await pdf.embedFont(StandardFonts.Helvetica),
    bold: await pdf.embedFont(StandardFonts.HelveticaBold),
    serif: await pdf.embedFont(StandardFonts.TimesRoman),
    mono: await pdf.embedFont(StandardFonts.Courier),
  };
  const layout = new Layout(pdf, fonts, doc);
  layout.header();
  layout.title();
  for (const section of doc.metadata.sections) layout.section(section.heading, section.fields);
  layout.section('Ledger evidence', [
    { label: 'Sequence number', value: String(doc.record.sequenceNumber) },
    { label: 'Ledger record', value: doc.record.id, monospace: true },
    { label: 'Recorded at', value: formatInstant(doc.record.timestamp) },
    { label: 'Record hash (SHA-256)', value: doc.record.recordHash, monospace: true },
    {
      label: 'Previous chain hash',
      value: doc.record.previousHash ?? 'none (first record)',
      monospace: true,
    },
    { label: 'Chain hash', value: doc.record.chainHash, monospace: true },
    { label: 'Signature (ECDSA P-256)', value: doc.record.signature, monospace: true },
    { label: 'Signing key fingerprint', value: doc.keyFingerprint, monospace: true },
  ]);
  layout.verification();
  layout.footers();
  return pdf.save({ useObjectStreams: false });
}

class Layout {
  private page!: PDFPage;
  private y = 0;
  private readonly pages: PDFPage[] = [];
  private readonly charset: Map<PDFFont, Set<number>> = new Map();

  constructor(
    private readonly pdf: PDFDocument,
    private readonly fonts: Fonts,
    private readonly doc: CertificateDocument,
  ) {
    this.newPage();
  }

  private newPage(): void {
    this.page = this.pdf.addPage([PAGE.width, PAGE.height]);
    this.pages.push(this.page);
    // A navy band across the top of every page.
    this.page.drawRectangle({ x: 0, y: PAGE.height - 8, width: PAGE.width, height: 8, color: NAVY });
    this.y = PAGE.height - 42;
    if (this.pages.length > 1) {
      this.text(
        `Ledger certificate ${this.doc.certificateId} (continued)`,
        MARGIN,
        this.y,
        8,
        this.fonts.regular,
        MUTED,
      );
      this.y -= 24;
    }
  }

  /** Starts a new page unless `height` points still fit above the footer. */
  private ensure(height: number): void {
    if (this.y - height < FOOTER_TOP + 4) this.newPage();
  }

  /** Replaces characters the standard fonts cannot encode. */
  private safe(value: string, font: PDFFont): string {
    let set = this.charset.get(font);
    if (!set) this.charset.set(font, (set = new Set(font.getCharacterSet())));
    let out = '';
    for (const char of value.replace(/[\r\n\t]+/g, ' ')) out += set.has(char.codePointAt(0)!) ? char : '?';
    return out;
  }

  private text(value: string, x: number, y: number, size: number, font: PDFFont, color: RGB = INK): void {
    this.page.drawText(this.safe(value, font), { x, y, size, font, color });
  }

  private width(value: string, font: PDFFont, size: number): number {
    return font.widthOfTextAtSize(this.safe(value, font), size);
  }

  /** Word-wraps to a width; a word longer than the width (a hash, a signature) is broken anywhere. */
  private wrap(value: string, font: PDFFont, size: number, maxWidth: number): string[] {
    const lines: string[] = [];
    for (const paragraph of value.split(/\r?\n/)) {
      let line = '';
      for (const word of paragraph.split(/\s+/).filter(Boolean)) {
        const candidate = line ? `${line} ${word}` : word;
        if (this.width(candidate, font, size) <= maxWidth) {
          line = candidate;
          continue;
        }
        if (line) lines.push(line);
        let rest = word;
        while (this.width(rest, font, size) > maxWidth) {
          let cut = rest.length - 1;
          while (cut > 1 && this.width(rest.slice(0, cut), font, size) > maxWidth) cut -= 1;
          lines.push(rest.slice(0, cut));
          rest = rest.slice(cut);
        }
        line = rest;
      }
      lines.push(line);
    }
    return lines.length > 0 ? lines : [''];
  }

  header(): void {
    const { regular, bold } = this.fonts;
    this.text('GOVERNANCE LEDGER SERVICE', MARGIN, this.y, 8.5, bold, NAVY);
    const right = `Certificate ${this.doc.certificateId}`;
    this.text(right, PAGE.width - MARGIN - this.width(right, regular, 8.5), this.y, 8.5, regular, MUTED);
    this.y -= 10;
    this.rule();
    this.y -= 30;
  }

  title(): void {
    const { regular, bold, serif } = this.fonts;
    this.text('Certificate of Ledger Record', MARGIN, this.y, 24, serif, NAVY);
    this.y -= 18;
    this.text(
      'A signed entry in the firm\u2019s append-only, hash-chained compliance ledger',
      MARGIN,
      this.y,
      10,
      regular,
      MUTED,
    );
    this.y -= 26;

    // The firm and the event on the left; the QR code of the verification page on the right.
    const qrSize = 104;
    const qrTop = this.y + 6;
    drawQr(this.page, this.doc.verificationUrl, PAGE.width - MARGIN - qrSize, qrTop - qrSize, qrSize);
    const caption = 'Scan to verify';
    this.text(
      caption,
      PAGE.width - MARGIN - qrSize / 2 - this.width(caption, regular, 7.5) / 2,
      qrTop - qrSize - 8,
      7.5,
      regular,
      MUTED,
    );
    const leftWidth = CONTENT_WIDTH - qrSize - 20;

    this.text('ISSUED TO', MARGIN, this.y, 7.5, bold, MUTED);
    this.y -= 17;
    for (const line of this.wrap(this.doc.firmName, bold, 15, leftWidth)) {
      this.text(line, MARGIN, this.y, 15, bold);
      this.y -= 18;
    }
    this.text(
      `FCA Firm Reference Number (FRN): ${this.doc.firmFrnNumber || '\u2014'}`,
      MARGIN,
      this.y,
      10,
      regular,
    );
    this.y -= 26;

    // The event, with its status pill on its own line below.
    const { eventLabel, statusPill } = this.doc.metadata;
    this.text('EVENT', MARGIN, this.y, 7.5, bold, MUTED);
    this.y -= 19;
    for (const line of this.wrap(eventLabel, bold, 14, leftWidth)) {
      this.text(line, MARGIN, this.y, 14, bold, NAVY);
      this.y -= 18;
    }
    if (statusPill) {
      const size = 9;
      const pillWidth = this.width(statusPill.label, bold, size) + 20;
      this.y -= 2;
      this.page.drawRectangle({
        x: MARGIN,
        y: this.y - 5,
        width: pillWidth,
        height: 17,
        color: TONES[statusPill.tone],
      });
      this.text(statusPill.label, MARGIN + 10, this.y, size, bold, WHITE);
      this.y -= 22;
    }
    this.y = Math.min(this.y, qrTop - qrSize - 20) - 6;
  }

  section(heading: string, fields: CertificateField[]): void {
    const { regular, bold, mono } = this.fonts;
    this.ensure(50);
    this.y -= 6;
    this.text(heading.toUpperCase(), MARGIN, this.y, 8.5, bold, NAVY);
    this.y -= 6;
    this.rule();
    this.y -= 14;
    for (const field of fields) {
      const font = field.monospace ? mono : regular;
      const size = field.monospace ? 8 : 9.5;
      const leading = field.monospace ? 10 : 12;
      const lines = this.wrap(field.value, font, size, VALUE_WIDTH);
      const labelLines = this.wrap(field.label, regular, 9, LABEL_WIDTH);
      const height = Math.max(lines.length * leading, labelLines.length * 12);
      this.ensure(height + 6);
      labelLines.forEach((line, i) => this.text(line, MARGIN, this.y - i * 12, 9, regular, MUTED));
      lines.forEach((line, i) => this.text(line, VALUE_X, this.y - i * leading, size, font));
      this.y -= height + 3;
    }
    this.y -= 6;
  }

  /** The verification panel: where to verify, when the certificate was issued and what verifying checks. */
  verification(): void {
    const { regular, bold, mono } = this.fonts;
    const inner = CONTENT_WIDTH - 28;
    const explanation =
      'Open the address (or scan the code above). The service recomputes the record hash from the stored record, checks its link to the previous record and its ECDSA P-256 signature against the published signing key, and compares the record with its write-once backup copy.';
    const urlLines = this.wrap(this.doc.verificationUrl, mono, 8.5, inner);
    const textLines = this.wrap(explanation, regular, 8.5, inner);
    const panelHeight = 20 + 16 + urlLines.length * 11 + 5 + textLines.length * 11 + 6;
    this.ensure(panelHeight + 4);
    const top = this.y;
    this.page.drawRectangle({
      x: MARGIN,
      y: top - panelHeight,
      width: CONTENT_WIDTH,
      height: panelHeight,
      color: PANEL,
      borderColor: RULE,
      borderWidth: 0.75,
    });
    const x = MARGIN + 14;
    let y = top - 20;
    this.text('VERIFY THIS CERTIFICATE', x, y, 8.5, bold, NAVY);
    const issued = `Issued ${formatInstant(this.doc.issuedAt)}`;
    this.text(issued, PAGE.width - MARGIN - 14 - this.width(issued, bold, 8.5), y, 8.5, bold);
    y -= 16;
    for (const line of urlLines) {
      this.text(line, x, y, 8.5, mono);
      y -= 11;
    }
    y -= 5;
    for (const line of textLines) {
      this.text(line, x, y, 8.5, regular, MUTED);
      y -= 11;
    }
    this.y = top - panelHeight - 12;
  }

  footers(): void {
    const { regular } = this.fonts;
    const note =
      'This certificate presents a signed ledger record; the record is the evidence, checkable by anyone with the published key.';
    this.pages.forEach((page, index) => {
      this.page = page;
      page.drawLine({
        start: { x: MARGIN, y: FOOTER_TOP - 10 },
        end: { x: PAGE.width - MARGIN, y: FOOTER_TOP - 10 },
        thickness: 0.5,
        color: RULE,
      });
      let y = FOOTER_TOP - 24;
      for (const line of this.wrap(note, regular, 7.5, CONTENT_WIDTH - 70)) {
        this.text(line, MARGIN, y, 7.5, regular, MUTED);
        y -= 10;
      }
      const pageLabel = `Page ${index + 1} of ${this.pages.length}`;
      this.text(
        pageLabel,
        PAGE.width - MARGIN - this.width(pageLabel, regular, 7.5),
        FOOTER_TOP - 24,
        7.5,
        regular,
        MUTED,
      );
    });
  }

  private rule(): void {
    this.page.drawLine({
      start: { x: MARGIN, y: this.y },
      end: { x: PAGE.width - MARGIN, y: this.y },
      thickness: 0.75,
      color: RULE,
    });
  }
}

/** Draws a QR code as vector squares (crisp at any zoom and print size), quiet zone included in `size`. */
function drawQr(page: PDFPage, text: string, x: number, y: number, size: number): void {
  const qr = createQr(text, { errorCorrectionLevel: 'M' });
  const count = qr.modules.size;
  const quiet = 2;
  const cell = size / (count + 2 * quiet);
  page.drawRectangle({ x, y, width: size, height: size, color: WHITE });
  for (let row = 0; row < count; row++) {
    // Merge horizontal runs of dark modules into one rectangle each.
    let col = 0;
    while (col < count) {
      if (!qr.modules.get(row, col)) {
        col += 1;
        continue;
      }
      const start = col;
      while (col < count && qr.modules.get(row, col)) col += 1;
      page.drawRectangle({
        x: x + (quiet + start) * cell,
        y: y + size - (quiet + row + 1) * cell,
        width: (col - start) * cell,
        height: cell,
        color: rgb(0, 0, 0),
      });
    }
  }
}
