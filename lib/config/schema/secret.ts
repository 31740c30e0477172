/**
 * The two kinds of secret setting: accepted from env or files, redacted whenever printed. Both
 * are operator settings (never writable through `PUT /config`), declared on the field itself.
 *
 * @module
 */
import { z } from "zod";
import { operatorOnly, type SettingOptions } from "../setting.ts";

/** A secret string: accepted from env or files, redacted whenever printed; an operator setting. */
export const secret = (
  options: Omit<SettingOptions, "secret"> = {},
): z.ZodOptional<z.ZodString> =>
  operatorOnly(z.string().min(1).optional(), { ...options, secret: true });

/** A secret of at least 32 bytes (UTF-8); an operator setting. */
export const longSecret = (
  options: Omit<SettingOptions, "secret"> = {},
): z.ZodOptional<z.ZodString> =>
  operatorOnly(
    z.string().refine((s) => new TextEncoder().encode(s).length >= 32, {
      message: "must be at least 32 bytes",
    }).optional(),
    { ...options, secret: true },
  );
