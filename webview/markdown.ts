// Session text is untrusted: a transcript can contain anything a model or a web page produced.
// Markdown is rendered with raw HTML escaped (so `<script>` and `<img onerror>` show as text),
// links kept only for http(s)/mailto (a `javascript:` link shows its target as text), images
// shown as text, and the result still passes through DOMPurify as a second line of defence.
import DOMPurify from 'dompurify';
import { Marked } from 'marked';

export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

const SAFE_URL = /^(https?:|mailto:)/i;

const marked = new Marked({
  gfm: true,
  breaks: true,
  async: false,
  renderer: {
    html({ text }) {
      return escapeHtml(text);
    },
    link({ href, title, tokens }) {
      const inner = this.parser.parseInline(tokens);
      if (!SAFE_URL.test(href.trim())) return `${inner} <span class="sl-unsafe-link">(${escapeHtml(href)})</span>`;
      const t = title ? ` title="${escapeHtml(title)}"` : '';
      return `<a href="${escapeHtml(href)}"${t}>${inner}</a>`;
    },
    image({ href, text }) {
      return `<span class="sl-md-image">[image: ${escapeHtml(text)} ${escapeHtml(href)}]</span>`;
    },
  },
});

const PURIFY_CONFIG = {
  FORBID_TAGS: ['style', 'img', 'svg', 'math', 'form', 'input', 'button', 'iframe', 'object', 'embed', 'video', 'audio'],
  FORBID_ATTR: ['style', 'srcset'],
  ALLOWED_URI_REGEXP: /^(?:https?:|mailto:|#)/i,
};

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') node.setAttribute('rel', 'noopener noreferrer');
});

export function renderMarkdown(text: string): DocumentFragment {
  let html: string;
  try {
    html = marked.parse(text) as string;
  } catch {
    html = `<pre>${escapeHtml(text)}</pre>`;
  }
  return DOMPurify.sanitize(html, { ...PURIFY_CONFIG, RETURN_DOM_FRAGMENT: true });
}
