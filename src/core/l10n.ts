// Wording the core produces for a user interface (the Sessions view's search status, relative
// times, filter titles, run labels). The core cannot import `vscode`, so such a function takes a
// `l10nT` argument: the extension passes `vscode.l10n.t`, everyone else gets English. The build
// collects the literal passed to every `l10nT(…)` call into l10n/bundle.l10n.json, as it does
// for the extension's own `vscode.l10n.t(…)` calls (test/l10n-keys.mjs).

/** Same shape as `vscode.l10n.t`: a template with `{0}`, `{1}`… and its arguments. */
export type Translate = (message: string, ...args: Array<string | number | boolean>) => string;

/** The template itself, with its placeholders filled in. */
export const english: Translate = (message, ...args) =>
  message.replace(/\{(\d+)\}/g, (whole, i: string) => (Number(i) < args.length ? String(args[Number(i)]) : whole));
