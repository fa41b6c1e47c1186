// The webview's answer for one image of an xcsh entry, for both xcsh models (eager and lazy): the
// data URL of an inert image type, or the sentence the webview shows in its place.
import { describeBlobProblem, resolveImageData, type BlobStore } from '../../formats/xcsh/blobs';
import type { Translate } from '../../l10n';
import { inertImageMime, type ImageResult } from '../model';

export async function imageResult(img: { data: string; mimeType: string } | null, blobs: BlobStore, t: Translate): Promise<ImageResult> {
  if (!img) return { kind: 'error', message: t('no image at this place in the entry') };
  const r = await resolveImageData(img.data, blobs);
  if (r.kind === 'missing') return { kind: 'missing', hash: r.hash };
  if (r.kind === 'invalid') return { kind: 'error', message: t('invalid blob reference {0}', r.ref.slice(0, 80)) };
  if (r.kind === 'bad') return { kind: 'error', message: t('image blob {0} not shown: it {1}', r.hash, describeBlobProblem(r.problem, t)) };
  const mime = inertImageMime(img.mimeType);
  if (!mime) return { kind: 'error', message: t('not shown: {0} images are not displayed', img.mimeType.slice(0, 60)) };
  return { kind: 'data', dataUrl: `data:${mime};base64,${r.base64}` };
}
