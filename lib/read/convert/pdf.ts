/**
 * PDF text with `unpdf`, page markers kept.
 *
 * @module
 */
import { extractText, getDocumentProxy } from "unpdf";
import { GleanerError } from "../../errors.ts";

/** Result of reading a PDF. */
export interface PdfText {
  /** Markdown with a `<!-- page N -->` marker before each page. */
  markdown: string;
  /** Pages in the document. */
  totalPages: number;
  /** Pages read (limited by `maxPages`). */
  pagesRead: number;
  /** Title from the document info, when present. */
  title?: string;
}

/**
 * Extracts the text of a PDF, page by page, up to `maxPages`.
 *
 * @example
 * ```ts ignore
 * import { pdfToMarkdown } from "./pdf.ts";
 * const bytes = await Deno.readFile("paper.pdf");
 * const { markdown, totalPages } = await pdfToMarkdown(bytes, { maxPages: 20 });
 * ```
 */
export async function pdfToMarkdown(
  bytes: Uint8Array,
  options: { maxPages?: number } = {},
): Promise<PdfText> {
  const maxPages = options.maxPages ?? 50;
  let pdf;
  try {
    pdf = await getDocumentProxy(new Uint8Array(bytes));
  } catch (error) {
    throw new GleanerError("unsupported_content", "the PDF could not be parsed", { cause: error });
  }
  try {
    const { totalPages, text } = await extractText(pdf, { mergePages: false });
    const pages = (text as string[]).slice(0, maxPages);
    const markdown = pages
      .map((pageText, index) => `<!-- page ${index + 1} -->\n${pageText.trim()}`)
      .join("\n\n");
    let title: string | undefined;
    try {
      const meta = await pdf.getMetadata();
      const info = meta.info as { Title?: string } | undefined;
      title = info?.Title?.trim() || undefined;
    } catch {
      title = undefined;
    }
    return { markdown, totalPages, pagesRead: pages.length, title };
  } finally {
    await pdf.cleanup().catch(() => {});
  }
}
