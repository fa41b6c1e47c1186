// One date format everywhere (issue 14): the Sessions view's rows and tooltips and the session
// editor's header, tree and messages format dates and times alike. Both sides pass the UI's
// language (the extension host `vscode.env.language`, the webview its <html lang>) so that Node
// and the browser agree: their default locales can differ.

const DATE_TIME: Intl.DateTimeFormatOptions = { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' };
const TIME_OF_DAY: Intl.DateTimeFormatOptions = { hour: '2-digit', minute: '2-digit', second: '2-digit' };
const DAY: Intl.DateTimeFormatOptions = { month: 'short', day: 'numeric' };

// toLocaleString & co. build an Intl.DateTimeFormat on every call (~0.2 ms each): a repaint of
// the editor formats a time for every row it draws. One formatter per (format, locale) instead.
const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(options: Intl.DateTimeFormatOptions, name: string, locale: string | undefined): Intl.DateTimeFormat {
  const key = `${name}\0${locale ?? ''}`;
  let f = formatters.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(locale, options);
    formatters.set(key, f);
  }
  return f;
}

function toDate(value: string | number | Date | null | undefined): Date | null {
  if (value === null || value === undefined || value === '') return null;
  const d = value instanceof Date ? value : new Date(value);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** "Mar 1, 2026, 09:00:21 AM" (in English); '' for no date, the input itself when it is no date. */
export function formatDateTime(value: string | number | Date | null | undefined, locale?: string): string {
  const d = toDate(value);
  if (!d) return typeof value === 'string' ? value : '';
  return formatter(DATE_TIME, 'dateTime', locale).format(d);
}

/** "09:00:21 AM"; with `sameDayAs` set and on another day, "Mar 2, 09:00:21 AM" (rows of a session that spans days). */
export function formatTimeOfDay(value: string | number | Date | null | undefined, locale?: string, sameDayAs?: string | number | Date | null): string {
  const d = toDate(value);
  if (!d) return typeof value === 'string' ? value : '';
  const time = formatter(TIME_OF_DAY, 'time', locale).format(d);
  const day = toDate(sameDayAs);
  if (!day || localDay(d) === localDay(day)) return time;
  return `${formatter(DAY, 'day', locale).format(d)}, ${time}`;
}

function localDay(d: Date): string {
  return `${d.getFullYear()}-${d.getMonth()}-${d.getDate()}`;
}
