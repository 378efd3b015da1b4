import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { ImageFetchError } from './fetch-image';

export interface ThumbnailBox {
  width: number;
  height: number;
}

export const DEFAULT_THUMBNAIL_SIZE = '130X130';

/** '130X130' (or '130x130') → box; each side 16..1024 (the contracts' bounds), else null. */
export function parseThumbnailBox(size: string | null | undefined): ThumbnailBox | null {
  const m = /^([0-9]{1,4})[Xx]([0-9]{1,4})$/.exec(size ?? '');
  if (!m) return null;
  const width = Number(m[1]);
  const height = Number(m[2]);
  const ok = (n: number) => n >= 16 && n <= 1024;
  return ok(width) && ok(height) ? { width, height } : null;
}

export function formatThumbnailSize(box: ThumbnailBox): string {
  return `${box.width}X${box.height}`;
}

/** Formats sharp may decode for us; SVG, PDF and the like are refused. */
const ALLOWED_FORMATS = new Set(['jpeg', 'png', 'webp', 'gif', 'avif', 'heif', 'tiff']);

export interface Thumbnail {
  data: Buffer;
  contentType: 'image/jpeg' | 'image/png';
  width: number;
  height: number;
  /** the original's size as displayed (EXIF orientation applied) */
  sourceWidth: number;
  sourceHeight: number;
  /** base64url(sha256(size, bytes)): the URL key and the strong ETag */
  key: string;
}

/**
 * Resizes an original into the box keeping its aspect ratio (fit "inside", never enlarged),
 * EXIF orientation applied, metadata stripped: PNG when the original has transparency, JPEG
 * otherwise. maxPixels bounds the decoded size (decompression bombs).
 */
export async function makeThumbnail(
  input: Buffer,
  box: ThumbnailBox,
  maxPixels = 50_000_000,
): Promise<Thumbnail> {
  let meta: sharp.Metadata;
  try {
    meta = await sharp(input, { limitInputPixels: maxPixels }).metadata();
  } catch (err) {
    throw new ImageFetchError(`not an image: ${(err as Error).message}`, true);
  }
  if (!ALLOWED_FORMATS.has(meta.format))
    throw new ImageFetchError(`image format ${meta.format} is not accepted`, true);
  if (!meta.width || !meta.height) throw new ImageFetchError('image without dimensions', true);
  if (meta.width * meta.height > maxPixels) {
    throw new ImageFetchError(
      `image is ${meta.width}x${meta.height}, more than ${maxPixels} pixels`,
      true,
    );
  }
  const pipeline = sharp(input, { limitInputPixels: maxPixels, failOn: 'error' })
    .autoOrient()
    .resize({ width: box.width, height: box.height, fit: 'inside', withoutEnlargement: true });
  const alpha = meta.hasAlpha === true;
  let out: { data: Buffer; info: sharp.OutputInfo };
  try {
    out = await (
      alpha ? pipeline.png({ compressionLevel: 9 }) : pipeline.jpeg({ quality: 82, mozjpeg: true })
    ).toBuffer({
      resolveWithObject: true,
    });
  } catch (err) {
    throw new ImageFetchError(`image cannot be decoded: ${(err as Error).message}`, true);
  }
  const size = formatThumbnailSize(box);
  const key = createHash('sha256').update(size).update('\n').update(out.data).digest('base64url');
  return {
    data: out.data,
    contentType: alpha ? 'image/png' : 'image/jpeg',
    width: out.info.width,
    height: out.info.height,
    sourceWidth: meta.autoOrient?.width ?? meta.width,
    sourceHeight: meta.autoOrient?.height ?? meta.height,
    key,
  };
}
