/**
 * The `log` section: logging.
 *
 * @module
 */
import { z } from "zod";
import { operatorOnly } from "../setting.ts";

/** Settings of logging. */
export const LogSchema: z.ZodObject<{
  level: z.ZodDefault<
    z.ZodEnum<{
      error: "error";
      trace: "trace";
      debug: "debug";
      info: "info";
      warning: "warning";
      fatal: "fatal";
    }>
  >;
}, z.core.$strip> = z.object({
  /** Lowest level written to stderr. */
  level: operatorOnly(
    z.enum(["trace", "debug", "info", "warning", "error", "fatal"]).default("info"),
    { env: ["GLEANER_LOG_LEVEL"] },
  ),
});
