// Text placed inside an HTML element's raw-text content (<script>, <style>): the rules that keep
// it from ending the element early. Shared by the editor's webview page and the HTML export, which
// both carry the webview bundle and data inline.

/**
 * A JSON value as the text of a `<script type="application/json">` element: `<`, `>`, `&` and the
 * two JS line separators written as `\u` escapes, so no string in it can close the element
 * (`</script>`) or open a comment (`<!--`); JSON.parse reads it back unchanged. Outside strings
 * JSON has none of them.
 */
export function jsonScriptText(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A script's text inside <script>: `</script` and `<!--` cannot appear raw (JS reads `<\/` as `</`). */
export function inlineScript(js: string): string {
  return js.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

/** A stylesheet's text inside <style>: `</style` cannot appear raw (CSS reads `<\/` as `</`). */
export function inlineStyle(css: string): string {
  return css.replace(/<\/(style)/gi, '<\\/$1');
}
