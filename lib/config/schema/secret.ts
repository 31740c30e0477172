/**
 * The two kinds of secret setting: accepted from env or files, redacted whenever printed.
 *
 * @module
 */
import { z } from "zod";

/** A secret string: accepted from env or files, redacted whenever printed. */
export const secret = (): z.ZodOptional<z.ZodString> => z.string().min(1).optional();

/** A secret of at least 32 bytes (UTF-8). */
export const longSecret = (): z.ZodOptional<z.ZodString> =>
  z.string().refine((s) => new TextEncoder().encode(s).length >= 32, {
    message: "must be at least 32 bytes",
  }).optional();
