/**
 * Loaded with `deno run --preload` before `cli.ts serve`: once the server
 * answers `/health`, it leaves a promise rejection unhandled
 * (`CARELESS=rejection`) or throws from a timer (`CARELESS=throw`), as a
 * careless code path would. The server must log it, flush its logs and exit
 * non-zero.
 */
const port = Deno.env.get("GLEANER_PORT");
const kind = Deno.env.get("CARELESS");
let fired = false;
const poll = setInterval(async () => {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/health`);
    await response.body?.cancel();
    if (!response.ok) return;
  } catch {
    return;
  }
  if (fired) return;
  fired = true;
  clearInterval(poll);
  if (kind === "rejection") {
    Promise.reject(new Error("rejection left unhandled on purpose"));
  } else {
    setTimeout(() => {
      throw new Error("error thrown from a timer on purpose");
    }, 10);
  }
}, 100);
// Unreferenced: a preload's own pending work would hold back the main module until it is done.
Deno.unrefTimer(poll);
